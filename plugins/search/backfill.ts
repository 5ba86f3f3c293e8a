import { inTransaction, type Db } from '../../core/db.ts';
import type { TableCatalog } from '../databases/public.ts';
import type { DocumentService } from '../documents/public.ts';
import type { SpaceService } from '../spaces/public.ts';
import { documentEntry, spaceEntry } from './named-entries.ts';
import type { SearchIndex } from './search-index.ts';

const PAGE = 500;

/**
 * The plugin enabled on an instance that already has data: every database is queued for a rebuild (its name and its
 * records) and a job is asked to name every space and document, in one transaction with the end of the backfill
 * (a second start finds nothing to do).
 */
export async function backfill(index: SearchIndex, catalog: TableCatalog, enqueue: (trx: Db) => Promise<unknown>): Promise<number> {
  if (!(await index.backfillDue())) return 0;
  return inTransaction(index.db, async (trx) => {
    const tables = await catalog.tables(trx);
    for (const { id, workspace_id } of tables) await index.requestRebuild(trx, workspace_id, id);
    await enqueue(trx);
    await index.backfillDone(trx);
    return tables.length;
  });
}

/**
 * Every space and standalone document of the instance into the index, a page at a time. An entry already written
 * by a later change is left as it is (the version check of `put`).
 */
export async function nameEverything(index: SearchIndex, spaces: SpaceService, documents: DocumentService | undefined): Promise<void> {
  for (let after: string | null = null; ; ) {
    const page = await spaces.pageById(after, PAGE);
    for (const space of page) await index.put(index.db, spaceEntry(space));
    if (page.length < PAGE) break;
    after = page[page.length - 1].id;
  }
  if (!documents) return;
  for (let after: string | null = null; ; ) {
    const page = await documents.pageById(after, PAGE);
    for (const { document, content } of page) await index.put(index.db, documentEntry(document, content));
    if (page.length < PAGE) break;
    after = page[page.length - 1].document.id;
  }
}
