import type { Database, Db } from '../../core/db.ts';
import { nodeKey, type WorkspaceAccess } from '../../core/authz.ts';
import { atLeast, strongest, type GrantRole } from '../../core/roles.ts';

const LOOKUP = 'SELECT scope_type, scope_id, role FROM access_grants WHERE workspace_id = $1 AND user_id = $2';

interface GrantRow {
  scope_type: string;
  scope_id: string;
  role: GrantRole;
}

/**
 * Feeds `auth.workspaceAccess` after membership: each grant raises the user's role on its
 * space or database node. Runs on every request, hence the prepared statement.
 */
export class GrantSource {
  private readonly lookup: (values: unknown[], trx?: Db) => Promise<GrantRow[]>;

  constructor(database: Database) {
    this.lookup = database.prepared<GrantRow>('access.grants', LOOKUP);
  }

  async fill(access: WorkspaceAccess, trx?: Db): Promise<WorkspaceAccess> {
    // A non-member gets nothing from a grant, and nothing raises an admin.
    if (access.role === null || atLeast(access.role, 'admin')) return access;
    const values = [access.workspaceId, access.userId];
    const rows = await this.lookup(values, trx);
    for (const row of rows) {
      const key = nodeKey({ type: row.scope_type, id: row.scope_id });
      access.nodeRoles.set(key, strongest(access.nodeRoles.get(key) ?? null, row.role) ?? row.role);
    }
    return access;
  }
}
