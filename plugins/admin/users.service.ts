import { inTransaction, type Db, type Trx } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import { notFound } from '../../core/errors.ts';
import { containsPattern } from '../../core/like-pattern.ts';
import { AdminErrors } from './errors.ts';
import type { AdminUser, PatchUserBody, UserListQuery } from './schemas.ts';

interface UserRow {
  id: string;
  email: string;
  name: string;
  is_instance_admin: boolean;
  disabled_at: Date | null;
  created_at: Date;
  workspace_count: number | null;
}

function toAdminUser(row: UserRow): AdminUser {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    is_instance_admin: row.is_instance_admin,
    disabled: row.disabled_at !== null,
    disabled_at: row.disabled_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    workspace_count: row.workspace_count === null ? null : Number(row.workspace_count),
  };
}

/** Every account on the instance: who may administer it, and who may sign in at all. */
export class AdminUserService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    /** Live: the workspaces plugin may be off, or fail after this one registered. */
    private readonly hasWorkspaces: () => boolean,
  ) {}

  private select(db: Db) {
    const workspaceCount = this.hasWorkspaces()
      ? db.raw('(SELECT count(*)::int FROM workspace_members m WHERE m.user_id = u.id) AS workspace_count')
      : db.raw('NULL::int AS workspace_count');
    return db('users as u').select('u.id', 'u.email', 'u.name', 'u.is_instance_admin', 'u.disabled_at', 'u.created_at', workspaceCount);
  }

  /** Newest first. */
  async list(query: UserListQuery): Promise<Page<AdminUser>> {
    const q = this.select(this.db);
    if (query.q) {
      const pattern = containsPattern(query.q);
      q.where((w) => w.whereILike('u.email', pattern).orWhereILike('u.name', pattern));
    }
    if (query.disabled === true) q.whereNotNull('u.disabled_at');
    if (query.disabled === false) q.whereNull('u.disabled_at');
    const page = await keysetPage<UserRow>(this.db, q, { keys: [{ column: 'u.created_at', type: 'timestamptz' }, { column: 'u.id', type: 'uuid' }], direction: 'desc' }, query);
    return { data: page.data.map(toAdminUser), next_cursor: page.next_cursor };
  }

  async get(id: string, db: Db = this.db): Promise<AdminUser> {
    const row = await this.select(db).where('u.id', id).first();
    if (!row) throw notFound('No such user.');
    return toAdminUser(row);
  }

  /**
   * Renames, promotes, demotes, disables or re-enables a user. The instance always keeps an
   * enabled instance admin, and no admin can lock themselves out.
   */
  async update(principal: UserPrincipal, id: string, body: PatchUserBody): Promise<AdminUser> {
    return inTransaction(this.db, async (trx) => {
      const admins = await this.lockEnabledAdmins(trx);
      const before = await trx('users').where({ id }).forNoKeyUpdate().first('id', 'is_instance_admin', 'disabled_at');
      if (!before) throw notFound('No such user.');
      if (id === principal.user.id && body.disabled === true) throw AdminErrors.self_change('disable');
      if (id === principal.user.id && body.is_instance_admin === false) throw AdminErrors.self_change('demote');
      const wasAdmin = before.is_instance_admin && before.disabled_at === null;
      const isAdmin = (body.is_instance_admin ?? before.is_instance_admin) && !(body.disabled ?? before.disabled_at !== null);
      if (wasAdmin && !isAdmin && admins.length <= 1) throw AdminErrors.last_instance_admin();

      const patch: Record<string, unknown> = { updated_at: trx.fn.now() };
      if (body.name !== undefined) patch.name = body.name.trim();
      if (body.is_instance_admin !== undefined) patch.is_instance_admin = body.is_instance_admin;
      const disabling = body.disabled === true && before.disabled_at === null;
      const enabling = body.disabled === false && before.disabled_at !== null;
      if (disabling) patch.disabled_at = trx.fn.now();
      if (enabling) patch.disabled_at = null;
      await trx('users').where({ id }).update(patch);
      if (disabling) {
        // Tokens are kept (they are refused while the user is disabled); sessions are not worth keeping.
        await trx('sessions').where({ user_id: id }).delete();
        await this.events.emit(trx, { name: 'user.disabled', actorId: principal.user.id, payload: { user_id: id } });
      }
      if (enabling) await this.events.emit(trx, { name: 'user.enabled', actorId: principal.user.id, payload: { user_id: id } });
      return this.get(id, trx);
    });
  }

  /** Locked in a fixed order: two admins disabling or demoting each other at once cannot both succeed. */
  private async lockEnabledAdmins(trx: Trx): Promise<string[]> {
    const rows = await trx('users').where({ is_instance_admin: true }).whereNull('disabled_at').orderBy('id').forNoKeyUpdate().select('id');
    return rows.map((r: { id: string }) => r.id);
  }
}
