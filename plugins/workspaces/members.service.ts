import { inTransaction, type Database, type Db, type Trx } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import type { Authz } from '../../core/authz.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { Role } from '../../core/roles.ts';
import { lowerUsage, raiseUsage, usageWatched, type UsageHooks } from '../../core/usage.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import { invalidField, notFound, validationFailed } from '../../core/errors.ts';
import { WorkspaceErrors } from './errors.ts';
import type { Member, PatchMemberBody } from './schemas.ts';
import type { WorkspaceLifecycle } from './hooks.ts';
import type { TokenService } from '../tokens/public.ts';
import type { UserContact, UserService } from '../auth/public.ts';

interface MemberRow {
  user_id: string;
  role: Role;
  space_ids: string[];
  created_at: Date;
}

function toMember(row: MemberRow, user: UserContact): Member {
  return { user_id: row.user_id, email: user.email, name: user.name, role: row.role, space_ids: row.space_ids, joined_at: row.created_at.toISOString() };
}

const COLUMNS = ['user_id', 'role', 'space_ids', 'created_at'];

/** Constant text: a prepared statement on PostgreSQL, since every record write naming people asks it. */
const HOLD_AMONG = 'SELECT user_id FROM workspace_members WHERE workspace_id = $1 AND user_id = ANY($2::uuid[]) FOR SHARE';

/** Members of a workspace: roles, guests' spaces, and the rule that a workspace always keeps an admin. */
export class MemberService {
  private readonly db: Db;
  private readonly holdAmongStatement: (values: unknown[], trx?: Db) => Promise<Array<{ user_id: string }>>;

  constructor(
    storage: Database,
    private readonly lifecycle: WorkspaceLifecycle,
    private readonly events: EventBus,
    private readonly authz: Authz,
    private readonly tokens: TokenService,
    private readonly users: UserService,
    private readonly usage: UsageHooks,
  ) {
    this.db = storage.knex;
    this.holdAmongStatement = storage.prepared('workspaces.members_among', HOLD_AMONG);
  }

  async list(workspaceId: string, page: { limit?: number; cursor?: string }): Promise<Page<Member>> {
    const q = this.db('workspace_members').where('workspace_id', workspaceId).select(COLUMNS);
    const result = await keysetPage<MemberRow>(this.db, q, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'user_id', type: 'uuid' }], direction: 'asc' }, page);
    return { data: await this.withContacts(result.data), next_cursor: result.next_cursor };
  }

  async get(workspaceId: string, userId: string, trx: Db = this.db): Promise<Member | null> {
    const row = await trx('workspace_members').where({ workspace_id: workspaceId, user_id: userId }).first(COLUMNS);
    return row ? ((await this.withContacts([row], trx))[0] ?? null) : null;
  }

  /** The workspace's admins' user ids: whom a plugin tells about what only admins can act on (a disabled webhook). */
  async adminIds(workspaceId: string, trx: Db = this.db): Promise<string[]> {
    return (await trx('workspace_members').where({ workspace_id: workspaceId, role: 'admin' }).select('user_id')).map((r: { user_id: string }) => r.user_id);
  }

  /**
   * Which of `userIds` are members of the workspace, their membership rows held FOR SHARE until `trx` ends: a
   * removal waits for the write that named them (and then takes with it what that write left). One statement.
   */
  async holdAmong(trx: Db, workspaceId: string, userIds: readonly string[]): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    return new Set((await this.holdAmongStatement([workspaceId, userIds], trx)).map((r) => r.user_id));
  }

  /** How many workspaces each of `userIds` belongs to (0 for none); one statement. */
  async workspaceCounts(userIds: readonly string[], db: Db = this.db): Promise<Map<string, number>> {
    const counts = new Map(userIds.map((id) => [id, 0]));
    if (userIds.length === 0) return counts;
    const rows: Array<{ user_id: string; n: number }> = await db('workspace_members').whereIn('user_id', userIds).groupBy('user_id').select('user_id', db.raw('count(*)::int AS n'));
    for (const { user_id, n } of rows) counts.set(user_id, n);
    return counts;
  }

  /** Whether two users are members of at least one workspace in common (a user shares with itself only through one). */
  async share(userId: string, otherId: string): Promise<boolean> {
    const row = await this.db('workspace_members as a')
      .join('workspace_members as b', 'b.workspace_id', 'a.workspace_id')
      .where({ 'a.user_id': userId, 'b.user_id': otherId })
      .first(this.db.raw('1 AS shared'));
    return !!row;
  }

  /** Whether the account with this email is a member of the workspace. */
  async hasEmail(trx: Db, workspaceId: string, email: string): Promise<boolean> {
    const user = await this.users.findByEmail(email, trx);
    return !!user && !!(await trx('workspace_members').where({ workspace_id: workspaceId, user_id: user.id }).first('user_id'));
  }

  /** Members with their names and emails (the account's), in the order given. */
  private async withContacts(rows: MemberRow[], db?: Db): Promise<Member[]> {
    const contacts = new Map((await this.users.contactsOf(rows.map((r) => r.user_id), db)).map((u) => [u.id, u]));
    return rows.flatMap((row) => {
      const user = contacts.get(row.user_id);
      return user ? [toMember(row, user)] : [];
    });
  }

  /**
   * Spaces a guest may enter must be spaces of this workspace; each is held (FOR SHARE) until
   * commit so that a concurrent space deletion cannot leave a dangling id.
   */
  async checkSpaces(trx: Trx, workspaceId: string, spaceIds: string[], pointer: string): Promise<void> {
    const errors = [];
    for (const [i, id] of spaceIds.entries()) {
      if (!(await this.authz.locate('space', { workspaceId, id, trx, lock: true }))) errors.push({ pointer: `${pointer}/${i}`, detail: 'No such space in this workspace.' });
    }
    if (errors.length) throw validationFailed(errors);
  }

  /** Adds a member (or, for someone already in, keeps the stronger of the two memberships untouched). */
  async add(trx: Trx, workspaceId: string, userId: string, role: Role, spaceIds: string[], actorId: string | null): Promise<Member> {
    // Counted in before the row exists (a plan may have no seat left): counting afterwards would count the newcomer twice.
    if (usageWatched(this.usage) && !(await this.get(workspaceId, userId, trx))) await raiseUsage(this.usage, trx, workspaceId, 'members', 1);
    const inserted = await trx('workspace_members')
      .insert({ workspace_id: workspaceId, user_id: userId, role, space_ids: role === 'guest' ? spaceIds : [] })
      .onConflict(['workspace_id', 'user_id'])
      .ignore()
      .returning('user_id');
    const member = (await this.get(workspaceId, userId, trx))!;
    if (inserted.length) await this.events.emit(trx, { name: 'member.added', workspaceId, actorId, payload: { member } });
    return member;
  }

  async update(principal: UserPrincipal, workspaceId: string, userId: string, body: PatchMemberBody): Promise<Member> {
    return inTransaction(this.db, async (trx) => {
      const admins = await this.lockAdmins(trx, workspaceId);
      const before = await this.get(workspaceId, userId, trx);
      if (!before) throw notFound('No such member.');
      const role = body.role ?? before.role;
      let spaceIds: string[];
      if (role === 'guest') {
        spaceIds = body.space_ids ?? (before.role === 'guest' ? before.space_ids : []);
        if (spaceIds.length === 0) throw invalidField('/space_ids', 'A guest needs at least one space.');
        if (body.space_ids) await this.checkSpaces(trx, workspaceId, body.space_ids, '/space_ids');
      } else {
        if (body.space_ids?.length) throw invalidField('/space_ids', `Only guests are confined to spaces; a ${role} sees the whole workspace.`);
        spaceIds = [];
      }
      if (before.role === 'admin' && role !== 'admin' && admins.length === 1) throw WorkspaceErrors.last_admin('demote');
      await trx('workspace_members').where({ workspace_id: workspaceId, user_id: userId }).update({ role, space_ids: spaceIds, updated_at: trx.fn.now() });
      const after = { ...before, role, space_ids: spaceIds };
      await this.lifecycle.memberChanged.promise({
        trx,
        workspaceId,
        userId,
        before: { role: before.role, space_ids: before.space_ids },
        after: { role, space_ids: spaceIds },
        actor: principal,
      });
      await this.events.emit(trx, { name: 'member.updated', workspaceId, actorId: principal.user.id, payload: { before, after } });
      return after;
    });
  }

  /**
   * Removes a member; their tokens for this workspace, grants and checklist go too (`memberRemoved` taps, cascades).
   * Inside `trx` when given (an erasure's transaction).
   */
  async remove(principal: UserPrincipal, workspaceId: string, userId: string, within?: Db): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      const admins = await this.lockAdmins(trx, workspaceId);
      const before = await this.get(workspaceId, userId, trx);
      if (!before) throw notFound('No such member.');
      if (before.role === 'admin' && admins.length === 1) throw WorkspaceErrors.last_admin('remove');
      await trx('workspace_members').where({ workspace_id: workspaceId, user_id: userId }).delete();
      await lowerUsage(this.usage, trx, workspaceId, 'members', 1);
      await this.tokens.revokeInWorkspace(trx, workspaceId, userId);
      await this.lifecycle.memberRemoved.promise({ trx, workspaceId, userId, role: before.role, actor: principal });
      await this.events.emit(trx, { name: 'member.removed', workspaceId, actorId: principal.user.id, payload: { member: before } });
    }, within);
  }

  /** Admin rows locked in a fixed order: two admins demoting each other at once cannot both succeed. */
  private async lockAdmins(trx: Trx, workspaceId: string): Promise<string[]> {
    const rows = await trx('workspace_members').where({ workspace_id: workspaceId, role: 'admin' }).orderBy('user_id').forUpdate().select('user_id');
    return rows.map((r: { user_id: string }) => r.user_id);
  }
}
