import type { Logger } from 'pino';
import { inTransaction, type Db } from '../../core/db.ts';
import type { TableCatalog } from '../databases/public.ts';
import type { RecordService } from '../records/public.ts';
import { unlessGone } from './gone.ts';
import { indexedField } from './record-text.ts';
import type { SearchIndex } from './search-index.ts';

/**
 * Reads a database's records again into the index, one page per statement outside any transaction: writes go on
 * meanwhile (and win: an entry is never set back to an older version), and searches find the records by their
 * previous text until their page is read. A request made while it ran leaves the rebuild pending for the next job.
 */
export async function rebuildDatabase(
  index: SearchIndex,
  records: RecordService,
  logger: Logger,
  databaseId: string,
  pageSize: number,
  name: (workspaceId: string) => Promise<void>,
): Promise<void> {
  const asked = await index.rebuildOf(databaseId);
  if (!asked) return;
  await name(asked.workspace_id);
  const started = Date.now();
  let after: string | null = null;
  let count = 0;
  for (;;) {
    const page = await unlessGone(() => records.pageById(asked.workspace_id, databaseId, after, pageSize, indexedField));
    if (!page) {
      await index.forgetDatabase(index.db, databaseId);
      return;
    }
    if (page.records.length === 0) break;
    await index.putRecords(index.db, asked.workspace_id, databaseId, page.fields, page.records);
    count += page.records.length;
    after = page.records[page.records.length - 1].id;
  }
  const finished = await index.finishRebuild(databaseId, asked.requests);
  logger.info({ databaseId, records: count, ms: Date.now() - started, finished }, 'search entries of a database rebuilt');
}

/**
 * The plugin enabled on an instance that already has databases: each is named in the index and queued for a
 * rebuild, in one transaction with the end of the backfill (run again, it finds nothing to do). Spaces and
 * documents made before are found once they next change.
 */
export async function backfill(index: SearchIndex, catalog: TableCatalog, enqueue: (databaseId: string, trx: Db) => Promise<unknown>): Promise<number> {
  if (!(await index.backfillDue())) return 0;
  return inTransaction(index.db, async (trx) => {
    const tables = await catalog.tables(trx);
    for (const { id, workspace_id } of tables) {
      await index.requestRebuild(trx, workspace_id, id);
      await enqueue(id, trx);
    }
    await index.backfillDone(trx);
    return tables.length;
  });
}
