import { inTransaction, type Db } from '../../core/db.ts';
import type { TableCatalog } from '../databases/public.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { Page } from '../../core/pagination.ts';
import type { RecordService } from './records.service.ts';
import type { TrashedRecord } from './schemas.ts';
import type { WatcherService } from './watchers.service.ts';
import type { RecordLifecycle } from './hooks.ts';

/** How long a soft-deleted record stays restorable. */
export const TRASH_DAYS = 30;
const PURGE_BATCH = 500;

/** The trash of each database: soft-deleted records, and the daily purge of those past `TRASH_DAYS`. */
export class TrashService {
  constructor(
    private readonly db: Db,
    private readonly records: RecordService,
    private readonly watchers: WatcherService,
    private readonly catalog: TableCatalog,
    private readonly lifecycle: RecordLifecycle,
  ) {}

  async list(principal: UserPrincipal, workspaceId: string, databaseId: string, page: { limit?: number; cursor?: string }): Promise<Page<TrashedRecord>> {
    const table = await this.records.seenBy(principal, await this.records.readTable(workspaceId, databaseId));
    const rows = await table.trash(this.db, page);
    const records = await this.records.present(this.db, table, rows.data);
    return { data: records.map((r, i) => ({ ...r, deleted_at: rows.data[i].deleted_at.toISOString() })), next_cursor: rows.next_cursor };
  }

  /**
   * Hard-deletes records soft-deleted before `now` minus `TRASH_DAYS`, in every database, in
   * batches of `batch` rows, each batch its own transaction holding the database row FOR SHARE
   * (a database being deleted waits, or is skipped once gone). The watchers of those records
   * go in the same transaction. Returns how many rows went.
   */
  async purge(now = new Date(), batch = PURGE_BATCH): Promise<number> {
    const cutoff = new Date(now.getTime() - TRASH_DAYS * 24 * 3600 * 1000);
    const databases = await this.catalog.tables();
    let purged = 0;
    for (const { id } of databases) {
      for (;;) {
        const n: number = await inTransaction(this.db, async (trx): Promise<number> => {
          const database = await this.catalog.keep(trx, id);
          if (!database) return 0;
          const doomed = trx(database.table_name).where('deleted_at', '<', cutoff).orderBy('deleted_at').limit(batch).select('id');
          const gone: Array<{ id: string }> = await trx(database.table_name).whereIn('id', doomed).del().returning('id');
          const recordIds = gone.map((r) => r.id);
          await this.watchers.forgetRecords(trx, id, recordIds);
          if (recordIds.length > 0) await this.lifecycle.purged.promise({ trx, databaseId: id, recordIds });
          return gone.length;
        });
        purged += n;
        if (n < batch) break;
      }
    }
    return purged;
  }
}
