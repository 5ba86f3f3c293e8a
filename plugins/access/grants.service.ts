import { inTransaction, type Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import type { Authz } from '../../core/authz.ts';
import { isUser, type Principal, type UserPrincipal } from '../../core/principal.ts';
import type { GrantRole } from '../../core/roles.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import { notFound, validationFailed, type ErrorDetail } from '../../core/errors.ts';
import type { MemberService, WorkspaceService } from '../workspaces/public.ts';
import type { Grant, GrantQuery, PutGrantBody, ScopeType } from './schemas.ts';

type GrantRow = {
  id: string;
  workspace_id: string;
  scope_type: ScopeType;
  scope_id: string;
  user_id: string;
  role: GrantRole;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
};

function toGrant(row: GrantRow): Grant {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    scope_type: row.scope_type,
    scope_id: row.scope_id,
    user_id: row.user_id,
    role: row.role,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const COLUMNS = ['id', 'workspace_id', 'scope_type', 'scope_id', 'user_id', 'role', 'created_by', 'created_at', 'updated_at'];

/** Grants: one role per (scope, user), raising what the user's workspace role gives there. */
export class GrantService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly authz: Authz,
    private readonly workspaces: WorkspaceService,
    private readonly members: MemberService,
  ) {}

  async list(workspaceId: string, query: GrantQuery): Promise<Page<Grant>> {
    const q = this.db('access_grants').where('workspace_id', workspaceId).select(COLUMNS);
    if (query.scope_type) q.where('scope_type', query.scope_type);
    if (query.scope_id) q.where('scope_id', query.scope_id);
    if (query.user_id) q.where('user_id', query.user_id);
    const result = await keysetPage<GrantRow>(this.db, q, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'asc' }, query);
    return { data: result.data.map(toGrant), next_cursor: result.next_cursor };
  }

  /**
   * Sets the user's role on the scope: `created` tells a new grant from a replaced one. The
   * membership and the scope are held FOR SHARE until commit, so that a concurrent removal
   * of either waits for this grant and then takes it away with it.
   */
  async put(principal: UserPrincipal, workspaceId: string, body: PutGrantBody): Promise<{ grant: Grant; created: boolean }> {
    return inTransaction(this.db, async (trx) => {
      await this.workspaces.hold(trx, workspaceId);
      const errors: ErrorDetail[] = [];
      if (!(await this.members.holdAmong(trx, workspaceId, [body.user_id])).has(body.user_id)) errors.push({ pointer: '/user_id', detail: 'Not a member of this workspace.' });
      const scope = await this.authz.locate(body.scope_type, { workspaceId, id: body.scope_id, trx, lock: true });
      if (!scope) errors.push({ pointer: '/scope_id', detail: `No such ${body.scope_type} in this workspace.` });
      if (errors.length) throw validationFailed(errors);

      const key = { scope_type: body.scope_type, scope_id: body.scope_id, user_id: body.user_id };
      // Writes only when the role changes; `xmax = 0` marks a row this statement inserted rather than updated.
      const [written] = await trx('access_grants')
        .insert({ ...key, workspace_id: workspaceId, role: body.role, created_by: principal.user.id })
        .onConflict(['scope_type', 'scope_id', 'user_id'])
        .merge({ role: body.role, updated_at: trx.fn.now() })
        .where('access_grants.role', '<>', body.role)
        .returning([...COLUMNS, trx.raw('(xmax = 0) AS created')]);
      if (!written) return { grant: toGrant(await trx('access_grants').where(key).first(COLUMNS)), created: false };
      const grant = toGrant(written);
      await this.events.emit(trx, { name: 'access.granted', workspaceId, actorId: principal.user.id, payload: { grant } });
      return { grant, created: written.created };
    });
  }

  async revoke(principal: UserPrincipal, workspaceId: string, id: string): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      await this.workspaces.hold(trx, workspaceId);
      if ((await this.deleteWhere(trx, principal, { workspace_id: workspaceId, id })) === 0) throw notFound('No such grant.');
    });
  }

  /** Removes the grants on a space or database that is being deleted. */
  async revokeScope(trx: Db, principal: Principal | undefined, workspaceId: string, scopeType: ScopeType, scopeId: string): Promise<void> {
    await this.deleteWhere(trx, principal, { workspace_id: workspaceId, scope_type: scopeType, scope_id: scopeId });
  }

  /** Removes a leaving member's grants in the workspace. */
  async revokeUser(trx: Db, principal: Principal | undefined, workspaceId: string, userId: string): Promise<number> {
    return this.deleteWhere(trx, principal, { workspace_id: workspaceId, user_id: userId });
  }

  private async deleteWhere(trx: Db, principal: Principal | undefined, where: Record<string, string>): Promise<number> {
    const rows: GrantRow[] = await trx('access_grants').where(where).delete().returning(COLUMNS);
    const actorId = principal && isUser(principal) ? principal.user.id : null;
    await this.events.emit(
      trx,
      rows.map((row) => ({ name: 'access.revoked', workspaceId: row.workspace_id, actorId, payload: { grant: toGrant(row) } })),
    );
    return rows.length;
  }
}
