import type { Database, Db } from '../../core/db.ts';
import type { WorkspaceAccess } from '../../core/authz.ts';
import type { Role } from '../../core/roles.ts';

const LOOKUP = 'SELECT role, space_ids FROM workspace_members WHERE workspace_id = $1 AND user_id = $2';

interface MembershipRow {
  role: Role;
  space_ids: string[];
}

/**
 * Feeds `auth.workspaceAccess`: the member's workspace role, and for a guest its spaces as
 * `member` nodes (a guest acts like a member inside them and sees nothing else).
 */
export class MembershipSource {
  private readonly lookup: (values: unknown[], trx?: Db) => Promise<MembershipRow[]>;

  constructor(database: Database) {
    this.lookup = database.prepared<MembershipRow>('workspaces.membership', LOOKUP);
  }

  async fill(access: WorkspaceAccess, trx?: Db): Promise<WorkspaceAccess> {
    const values = [access.workspaceId, access.userId];
    const [row] = await this.lookup(values, trx);
    if (!row) return access;
    access.role = row.role;
    if (row.role === 'guest') for (const id of row.space_ids) access.nodeRoles.set(`space:${id}`, 'member');
    return access;
  }
}
