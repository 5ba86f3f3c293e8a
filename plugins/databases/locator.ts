import type { CacheSignals, LocalCache } from '../../core/cache.ts';
import type { Database as Storage } from '../../core/db.ts';
import type { Location, LocateRequest } from '../../core/authz.ts';

const LOOKUP = 'SELECT workspace_id, space_id, created_by FROM databases WHERE id = $1';

interface Row {
  workspace_id: string;
  space_id: string;
  created_by: string | null;
}

/**
 * Answers `auth.locate` for databases: inside their space, so space grants and guests' spaces
 * apply. Every records request asks, so outside a transaction the answer comes from the
 * process cache (dropped by the `databases` signal when the row changes).
 */
export class DatabaseLocator {
  private readonly lookup: (values: unknown[]) => Promise<Row[]>;
  private readonly cache: LocalCache<Row | undefined>;

  constructor(storage: Storage, caches: CacheSignals) {
    this.lookup = storage.prepared<Row>('databases.locate', LOOKUP);
    this.cache = caches.create('databases.locations', { topics: { databases: 'group' } });
  }

  async locate(req: LocateRequest): Promise<Location | undefined> {
    let row: Row | undefined;
    if (req.trx) {
      const q = req.trx('databases').where({ id: req.id, workspace_id: req.workspaceId });
      row = await (req.lock ? q.forShare() : q).first('workspace_id', 'space_id', 'created_by');
    } else {
      row = await this.cache.get(req.id, '', async () => (await this.lookup([req.id]))[0]);
    }
    if (!row || row.workspace_id !== req.workspaceId) return undefined;
    return { path: [{ type: 'space', id: row.space_id }, { type: 'database', id: req.id }], createdBy: row.created_by };
  }
}
