import type { Logger } from 'pino';
import { inTransaction } from '../../core/db.ts';
import type { RecordService } from '../records/public.ts';
import { unlessGone } from '../../core/errors.ts';
import { indexedField } from './record-text.ts';
import type { SearchIndex } from './search-index.ts';

export interface Rebuilder {
  index: SearchIndex;
  records: RecordService;
  logger: Logger;
  pageSize: number;
  /** Writes the database's own entry (its name, its space). */
  name: (workspaceId: string, databaseId: string) => Promise<void>;
}

/**
 * Reads the records of every database waiting in `search_rebuilds` again into the index, one database after the other
 * in one job (a job per database would wait for the queue's polling between each), one page per short transaction:
 * writes go on meanwhile (and win: an entry is never set back to an older version, nor brought back once deleted),
 * and searches find the records by their previous text until their page is read. A database asked for again while it was read stays
 * pending for the job that request sent.
 */
export async function rebuildPending(r: Rebuilder): Promise<void> {
  const done = new Set<string>();
  for (let next = await r.index.nextRebuild(done); next; next = await r.index.nextRebuild(done)) {
    done.add(next.database_id);
    await rebuildDatabase(r, next.workspace_id, next.database_id, next.requests);
  }
}

async function rebuildDatabase(r: Rebuilder, workspaceId: string, databaseId: string, requests: number): Promise<void> {
  const started = Date.now();
  await r.name(workspaceId, databaseId);
  let after: string | null = null;
  let count = 0;
  for (;;) {
    // One short transaction per page: its records are held until their entries are written, so a delete or an edit
    // lands after this page's entries, never under them. Records a writer holds are skipped: that write's own
    // `records.changes` writes their entries while the database is being rebuilt.
    const page = await unlessGone(() =>
      inTransaction(r.index.db, async (trx) => {
        const read = await r.records.pageById(trx, workspaceId, databaseId, after, r.pageSize, indexedField);
        await r.index.putRecords(trx, workspaceId, databaseId, read.fields, read.records);
        return read.records;
      }),
    );
    if (!page) {
      await r.index.forgetDatabase(r.index.db, databaseId);
      return;
    }
    if (page.length === 0) break;
    count += page.length;
    after = page[page.length - 1].id;
  }
  const finished = await r.index.finishRebuild(databaseId, requests);
  r.logger.info({ databaseId, records: count, ms: Date.now() - started, finished }, 'search entries of a database rebuilt');
}
