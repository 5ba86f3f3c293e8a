import type { Database } from '../../core/db.ts';
import type { Knex } from 'knex';
import type { Location, LocateRequest } from '../../core/authz.ts';

const SPACE = 'SELECT created_by FROM spaces WHERE id = $1 AND workspace_id = $2';
const FOLDER = 'SELECT space_id, created_by FROM folders WHERE id = $1 AND workspace_id = $2';

/**
 * Answers `auth.locate` for spaces and folders. Every request on a space or folder route
 * asks, so outside a transaction the lookups are prepared statements.
 */
export class SpaceLocator {
  private readonly spaceLookup: (values: unknown[]) => Promise<Array<{ created_by: string | null }>>;
  private readonly folderLookup: (values: unknown[]) => Promise<Array<{ space_id: string; created_by: string | null }>>;

  constructor(database: Database) {
    this.spaceLookup = database.prepared('spaces.locate.space', SPACE);
    this.folderLookup = database.prepared('spaces.locate.folder', FOLDER);
  }

  async space(req: LocateRequest): Promise<Location | undefined> {
    const [row] = req.trx ? [await held(req.trx('spaces'), req).first('created_by')] : await this.spaceLookup([req.id, req.workspaceId]);
    return row ? { path: [{ type: 'space', id: req.id }], createdBy: row.created_by } : undefined;
  }

  /** A folder carries no roles of its own: what its space grants applies inside it. */
  async folder(req: LocateRequest): Promise<Location | undefined> {
    const [row] = req.trx ? [await held(req.trx('folders'), req).first('space_id', 'created_by')] : await this.folderLookup([req.id, req.workspaceId]);
    return row ? { path: [{ type: 'space', id: row.space_id }], createdBy: row.created_by } : undefined;
  }
}

/** The row of `req`, held FOR SHARE until commit when asked, so that it cannot be deleted meanwhile. */
function held(table: Knex.QueryBuilder, req: LocateRequest): Knex.QueryBuilder {
  const q = table.where({ id: req.id, workspace_id: req.workspaceId });
  return req.lock ? q.forShare() : q;
}
