import type { Database as Storage } from '../../core/db.ts';
import type { Location, LocateRequest } from '../../core/authz.ts';

const LOOKUP = 'SELECT space_id, created_by FROM databases WHERE id = $1 AND workspace_id = $2';

interface Row {
  space_id: string;
  created_by: string | null;
}

/** Answers `auth.locate` for databases: inside their space, so space grants and guests' spaces apply. */
export class DatabaseLocator {
  private readonly lookup: (values: unknown[]) => Promise<Row[]>;

  constructor(storage: Storage) {
    this.lookup = storage.prepared<Row>('databases.locate', LOOKUP);
  }

  async locate(req: LocateRequest): Promise<Location | undefined> {
    let row: Row | undefined;
    if (req.trx) {
      const q = req.trx('databases').where({ id: req.id, workspace_id: req.workspaceId });
      row = await (req.lock ? q.forShare() : q).first('space_id', 'created_by');
    } else {
      [row] = await this.lookup([req.id, req.workspaceId]);
    }
    return row ? { path: [{ type: 'space', id: row.space_id }, { type: 'database', id: req.id }], createdBy: row.created_by } : undefined;
  }
}
