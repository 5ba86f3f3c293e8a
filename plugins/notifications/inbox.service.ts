import type { Knex } from 'knex';
import type { Authz, WorkspaceAccess } from '../../core/authz.ts';
import type { Database as Storage, Db } from '../../core/db.ts';
import { notFound } from '../../core/errors.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { UserService } from '../auth/public.ts';
import type { Notification, NotificationQuery } from './schemas.ts';

const TABLE = 'notifications';
const NEWEST_FIRST = { keys: [{ column: 'created_at', type: 'timestamptz' as const }, { column: 'id', type: 'uuid' as const }], direction: 'desc' as const };
const COLUMNS = ['id', 'workspace_id', 'type', 'actor_id', 'subject_type', 'subject_id', 'subject_title', 'record_id', 'database_id', 'data', 'read_at', 'archived_at', 'created_at'];
const NO_NOTIFICATION = 'No such notification.';

interface NotificationRow {
  id: string;
  workspace_id: string;
  type: string;
  actor_id: string | null;
  subject_type: string;
  subject_id: string;
  subject_title: string | null;
  record_id: string | null;
  database_id: string | null;
  data: Record<string, unknown>;
  read_at: Date | null;
  archived_at: Date | null;
  created_at: Date;
}

/** Whose notifications, and which of them the caller may see now. */
interface Scope {
  workspaceId: string;
  userId: string;
  /** Databases the caller sees among those its notifications name; undefined: all of them. */
  databases?: string[];
}

/**
 * A user's own notifications in a workspace and their two independent states: read or not, archived or not. A
 * caller who sees only part of the workspace (a guest, a grant) sees only the notifications about databases it can
 * see now, and about nothing in a database; the others are kept, and come back if its sight does.
 */
/** The badge of a caller who sees the whole workspace, the common case: prepared, one range of the unread index. `$1` user, `$2` workspace. */
const UNREAD_COUNT = `SELECT count(*)::int AS count FROM ${TABLE} WHERE user_id = $1 AND workspace_id = $2 AND read_at IS NULL AND archived_at IS NULL`;

export class InboxService {
  private readonly countUnread: (values: unknown[]) => Promise<Array<{ count: number }>>;

  constructor(
    private readonly db: Db,
    storage: Storage,
    private readonly authz: Authz,
    private readonly users: UserService,
  ) {
    this.countUnread = storage.prepared('notifications.unread-count', UNREAD_COUNT);
  }

  async list(principal: UserPrincipal, access: WorkspaceAccess, query: NotificationQuery): Promise<Page<Notification>> {
    const scope = await this.scopeOf(principal, access);
    const q = this.own(scope).select(COLUMNS);
    if (query.type) q.where('type', query.type);
    if (query.status === 'archived') q.whereNotNull('archived_at');
    else q.whereNull('archived_at');
    if (query.status === 'unread') q.whereNull('read_at');
    if (query.status === 'read') q.whereNotNull('read_at');
    const page = await keysetPage<NotificationRow>(this.db, q, NEWEST_FIRST, query);
    return { data: await this.present(page.data), next_cursor: page.next_cursor };
  }

  /** Unread in the inbox: the badge. */
  async unreadCount(principal: UserPrincipal, access: WorkspaceAccess): Promise<number> {
    const scope = await this.scopeOf(principal, access);
    if (!scope.databases) return Number((await this.countUnread([scope.userId, scope.workspaceId]))[0].count);
    const [{ count }] = await this.own(scope).whereNull('read_at').whereNull('archived_at').count({ count: '*' });
    return Number(count);
  }

  /** unread → read; reading one already read changes nothing. */
  read(principal: UserPrincipal, access: WorkspaceAccess, id: string): Promise<Notification> {
    return this.change(principal, access, id, { read_at: this.db.raw('coalesce(read_at, now())') });
  }

  /** Every unread notification of the inbox → read; answers how many. */
  async readAll(principal: UserPrincipal, access: WorkspaceAccess): Promise<number> {
    const scope = await this.scopeOf(principal, access);
    return this.own(scope).whereNull('read_at').whereNull('archived_at').update({ read_at: this.db.fn.now() });
  }

  /** inbox → archived, read or not. */
  archive(principal: UserPrincipal, access: WorkspaceAccess, id: string): Promise<Notification> {
    return this.change(principal, access, id, { archived_at: this.db.raw('coalesce(archived_at, now())') });
  }

  /** archived → back in the inbox, as read or unread as it was. */
  unarchive(principal: UserPrincipal, access: WorkspaceAccess, id: string): Promise<Notification> {
    return this.change(principal, access, id, { archived_at: null });
  }

  /** Forgets a member's notifications (and their pending mail) in the workspace they leave. */
  async forgetMember(trx: Db, workspaceId: string, userId: string): Promise<void> {
    await trx(TABLE).where({ workspace_id: workspaceId, user_id: userId }).delete();
    await trx('notifications_emails').where({ workspace_id: workspaceId, user_id: userId }).delete();
  }

  /** Forgets a deleted workspace's notifications, or a deleted database's (the tables keep no foreign keys). */
  async forgetWhere(trx: Db, where: { workspace_id: string } | { database_id: string }): Promise<void> {
    await trx(TABLE).where(where).delete();
    await trx('notifications_emails').where(where).delete();
  }

  /** Forgets what was sent about records purged from the trash. */
  async forgetRecords(trx: Db, databaseId: string, recordIds: string[]): Promise<void> {
    if (recordIds.length === 0) return;
    await trx(TABLE).where({ database_id: databaseId }).whereIn('record_id', recordIds).delete();
    await trx('notifications_emails').where({ database_id: databaseId }).whereIn('record_id', recordIds).delete();
  }

  private async change(principal: UserPrincipal, access: WorkspaceAccess, id: string, set: Record<string, unknown>): Promise<Notification> {
    const scope = await this.scopeOf(principal, access);
    const [row] = (await this.own(scope).where({ id }).update(set).returning(COLUMNS)) as NotificationRow[];
    if (!row) throw notFound(NO_NOTIFICATION);
    return (await this.present([row]))[0];
  }

  private own(scope: Scope): Knex.QueryBuilder {
    const q = this.db(TABLE).where({ user_id: scope.userId, workspace_id: scope.workspaceId });
    const { databases } = scope;
    if (databases) q.where((w) => w.whereNull('database_id').orWhereIn('database_id', databases));
    return q;
  }

  /**
   * The caller's scope: a caller who sees the whole workspace needs no filter (one index range); another gets the
   * databases it sees among those its notifications name (a few, each located from the locators' caches).
   */
  private async scopeOf(principal: UserPrincipal, access: WorkspaceAccess): Promise<Scope> {
    const scope = { workspaceId: access.workspaceId, userId: principal.user.id };
    if (this.authz.visibleScopes(principal, access) === 'all') return scope;
    const named: string[] = await this.db(TABLE).where({ user_id: scope.userId, workspace_id: scope.workspaceId }).whereNotNull('database_id').distinct().pluck('database_id');
    return { ...scope, databases: [...(await this.authz.seenIds(principal, access, 'database', named))] };
  }

  /** Rows as the API shows them, with their actors' names asked of `auth.users` for the whole page at once. */
  private async present(rows: NotificationRow[]): Promise<Notification[]> {
    const actors = [...new Set(rows.flatMap((row) => (row.actor_id ? [row.actor_id] : [])))];
    const names = await this.users.namesOf(actors);
    return rows.map((row) => {
      const name = row.actor_id ? names.get(row.actor_id) : undefined;
      return {
        id: row.id,
        workspace_id: row.workspace_id,
        type: row.type,
        actor: row.actor_id && name !== undefined ? { id: row.actor_id, name } : null,
        subject: { type: row.subject_type, id: row.subject_id, title: row.subject_title },
        record_id: row.record_id,
        database_id: row.database_id,
        data: row.data,
        read: row.read_at !== null,
        read_at: row.read_at?.toISOString() ?? null,
        archived: row.archived_at !== null,
        archived_at: row.archived_at?.toISOString() ?? null,
        created_at: row.created_at.toISOString(),
      };
    });
  }
}
