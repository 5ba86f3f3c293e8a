import { inTransaction, type Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { Page } from '../../core/pagination.ts';
import { notFound } from '../../core/errors.ts';
import type { AccountRow, SessionService, UserService } from '../auth/public.ts';
import type { MemberService } from '../workspaces/public.ts';
import { AdminErrors } from './errors.ts';
import type { AdminUser, PatchUserBody, UserListQuery } from './schemas.ts';

function toAdminUser(row: AccountRow, workspaceCount: number | null): AdminUser {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    is_instance_admin: row.is_instance_admin,
    disabled: row.disabled_at !== null,
    disabled_at: row.disabled_at?.toISOString() ?? null,
    email_status: row.email_status,
    created_at: row.created_at.toISOString(),
    workspace_count: workspaceCount,
  };
}

/** Every account on the instance (auth's): who may administer it, and who may sign in at all. */
export class AdminUserService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly users: UserService,
    private readonly sessions: SessionService,
    /** Live: the workspaces plugin may be off, or fail after this one registered. */
    private readonly members: () => MemberService | null,
  ) {}

  /** Newest first. */
  async list(query: UserListQuery): Promise<Page<AdminUser>> {
    const page = await this.users.listAccounts({ q: query.q, disabled: query.disabled }, query);
    return { data: await this.withWorkspaceCounts(page.data), next_cursor: page.next_cursor };
  }

  async get(id: string, db: Db = this.db): Promise<AdminUser> {
    const row = await this.users.findAccount(id, db);
    if (!row) throw notFound('No such user.');
    return (await this.withWorkspaceCounts([row], db))[0];
  }

  /**
   * Renames, promotes, demotes, disables or re-enables a user. The instance always keeps an
   * enabled instance admin, and no admin can lock themselves out.
   */
  async update(principal: UserPrincipal, id: string, body: PatchUserBody): Promise<AdminUser> {
    return inTransaction(this.db, async (trx) => {
      // Locked in a fixed order: two admins disabling or demoting each other at once cannot both succeed.
      const admins = await this.users.lockEnabledAdmins(trx);
      const before = await this.users.lockAccount(trx, id);
      if (!before) throw notFound('No such user.');
      if (id === principal.user.id && body.disabled === true) throw AdminErrors.self_change('disable');
      if (id === principal.user.id && body.is_instance_admin === false) throw AdminErrors.self_change('demote');
      const wasAdmin = before.is_instance_admin && before.disabled_at === null;
      const isAdmin = (body.is_instance_admin ?? before.is_instance_admin) && !(body.disabled ?? before.disabled_at !== null);
      if (wasAdmin && !isAdmin && admins.length <= 1) throw AdminErrors.last_instance_admin();

      const disabling = body.disabled === true && before.disabled_at === null;
      const enabling = body.disabled === false && before.disabled_at !== null;
      await this.users.updateAccount(trx, id, { name: body.name, is_instance_admin: body.is_instance_admin, disabled: disabling ? true : enabling ? false : undefined });
      if (disabling) {
        // Tokens are kept (they are refused while the user is disabled); sessions are not worth keeping.
        await this.sessions.revokeAllOf(id, trx);
        await this.events.emit(trx, { name: 'user.disabled', actorId: principal.user.id, payload: { user_id: id } });
      }
      if (enabling) await this.events.emit(trx, { name: 'user.enabled', actorId: principal.user.id, payload: { user_id: id } });
      return this.get(id, trx);
    });
  }

  /** Each account with how many workspaces it belongs to (null without the workspaces plugin), one statement for all. */
  private async withWorkspaceCounts(rows: AccountRow[], db?: Db): Promise<AdminUser[]> {
    const members = this.members();
    const counts = members && (await members.workspaceCounts(rows.map((r) => r.id), db));
    return rows.map((row) => toAdminUser(row, counts ? (counts.get(row.id) ?? 0) : null));
  }
}
