import type { CacheSignals, LocalCache } from '../../core/cache.ts';
import type { Database as Storage } from '../../core/db.ts';
import type { Location, LocateRequest } from '../../core/authz.ts';
import type { DatabasePlace, HeldDatabases } from './held-databases.ts';

const LOOKUP = 'SELECT workspace_id, space_id, created_by FROM databases WHERE id = $1';

type Row = DatabasePlace;

/**
 * Answers `auth.locate` for databases: inside their space, so space grants and guests' spaces
 * apply. Every records request asks, so outside a transaction the answer comes from the
 * process cache (dropped by the `databases` signal when the row changes); inside one, from what the transaction's
 * hold read (HeldDatabases), or else from the row.
 */
export class DatabaseLocator {
  private readonly lookup: (values: unknown[]) => Promise<Row[]>;
  private readonly cache: LocalCache<Row | undefined>;

  constructor(
    storage: Storage,
    caches: CacheSignals,
    private readonly held: HeldDatabases,
  ) {
    this.lookup = storage.prepared<Row>('databases.locate', LOOKUP);
    this.cache = caches.create('databases.locations', { topics: { databases: 'group' } });
  }

  async locate(req: LocateRequest): Promise<Location | undefined> {
    // A database this transaction holds (FOR SHARE) cannot move before it ends: the lock asked for is one it has.
    const row = req.trx
      ? (this.held.placeOf(req.trx, req.id) ?? (await this.readIn(req.trx, req)))
      : await this.cache.get(req.id, '', async () => (await this.lookup([req.id]))[0]);
    if (!row || row.workspace_id !== req.workspaceId) return undefined;
    return { path: [{ type: 'space', id: row.space_id }, { type: 'database', id: req.id }], createdBy: row.created_by };
  }

  private async readIn(trx: NonNullable<LocateRequest['trx']>, req: LocateRequest): Promise<Row | undefined> {
    const q = trx('databases').where({ id: req.id, workspace_id: req.workspaceId });
    return (await (req.lock ? q.forShare() : q).first('workspace_id', 'space_id', 'created_by')) as Row | undefined;
  }
}
