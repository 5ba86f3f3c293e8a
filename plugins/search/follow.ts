import type { DomainEvent } from '../../core/events.ts';
import type { PluginContext } from '../../core/plugin.ts';
import type { RecordChange } from '../records/public.ts';
import { unlessGone } from '../../core/errors.ts';
import { documentEntry, spaceEntry } from './named-entries.ts';
import { indexedField } from './record-text.ts';
import type { RecordSource } from './search-index.ts';
import type { SearchOptions } from './schemas.ts';

export const REBUILD_JOB = 'rebuild';

type Payload = Record<string, any>;

type FieldPayload = { type: string; is_title: boolean; api_name: string; options?: { choices?: unknown } };

/**
 * Whether a field event can change what records' entries say: a text-like field deleted or restored, one converted
 * to or from text, one whose select labels changed, an option renamed or removed (those events name no field). A
 * rename or a number field's change reads nothing again; a new field is empty everywhere and is not listened to.
 */
export function changesText(name: string, payload: Payload): boolean {
  const fields = [payload.field, payload.before, payload.after].filter((f): f is FieldPayload => !!f && typeof f.type === 'string');
  if (fields.length === 0) return true;
  if (!fields.some(indexedField)) return false;
  if (name !== 'field.updated' || !payload.before || !payload.after) return true;
  const [before, after] = [payload.before as FieldPayload, payload.after as FieldPayload];
  return before.type !== after.type || JSON.stringify(before.options?.choices ?? null) !== JSON.stringify(after.options?.choices ?? null);
}

/** A database's entry as it is now (its name, description and space; its records follow it to a new space), or none once it is gone. */
export async function nameDatabase(ctx: PluginContext<SearchOptions>, workspaceId: string, id: string): Promise<void> {
  const index = ctx.resolve('search.index');
  const found = await unlessGone(() => ctx.resolve('databases.service').get(workspaceId, id));
  if (!found) return index.forgetDatabase(ctx.db, id);
  await index.put(ctx.db, { id, type: 'database', workspaceId, spaceId: found.space_id, databaseId: id, title: found.name, body: found.description ?? '', version: Date.parse(found.updated_at) });
  await index.moveDatabase(ctx.db, id, found.space_id);
}

/**
 * Keeps the index true to what it follows. Records and document contents in the writes' own transactions (found the
 * moment the write commits, gone the moment a delete does); spaces, databases and document titles from their domain
 * events, each re-read when heard so that a late or repeated event never writes an old name; a field change asks for
 * its database's records to be read again in the background.
 */
/**
 * New records in one fan-out batch of a sync's events past which they are left to a rebuild of their database when the
 * run ends (`source.synced`), rather than written entry by entry.
 */
const SYNC_REBUILD_AT = 500;

export function follow(ctx: PluginContext<SearchOptions>): void {
  const index = () => ctx.resolve('search.index');
  /** Import transactions whose rebuild is already asked for: one request and one job per import, not per batch. */
  const rebuildAsked = new WeakSet<object>();

  ctx.hooksOf('records.changes').changed.tapPromise('search', async (w) => {
    // An import's records are read in by a background rebuild once it commits, not entry by entry: inline, the index's
    // GIN updates took the import of 100,000 rows from 2.8 s of PostgreSQL CPU to 4.9 s.
    if (w.origin.type !== 'import' || !w.changes.every((c) => c.kind === 'created') || rebuildAsked.has(w.trx)) return;
    rebuildAsked.add(w.trx);
    await index().requestRebuild(w.trx, w.workspaceId, w.databaseId);
    await ctx.sendJob(REBUILD_JOB, {}, w.trx);
  });
  // Every other write after it commits (the contract gives the index two seconds), a fan-out batch at a time.
  ctx.hooksOf('records.committed').committed.tapPromise('search', async (w) => {
    if (w.origin?.type === 'import') return;
    // A sync's page of many new records (a first sync's) is left to the rebuild its run asks for when it ends (below):
    // a run writes page by page, each its own transaction, so a rebuild asked per page would read the database again
    // and again.
    if (w.origin?.type === 'sync' && w.changes.filter((c) => c.kind === 'created').length >= SYNC_REBUILD_AT) {
      w = { ...w, changes: w.changes.filter((c) => c.kind !== 'created') };
      if (w.changes.length === 0) return;
    }
    const indexed = new Set(w.fields.filter(indexedField).map((f) => f.id));
    // An update of numbers, dates or people changes no entry, unless the database is being rebuilt: the rebuild skips
    // the records a write holds, so the write itself writes their entries.
    const textless = (c: RecordChange) => c.kind === 'updated' && !c.changed.some((id) => indexed.has(id));
    const rebuilding = w.changes.some(textless) && (await index().rebuilding(w.trx, w.databaseId));
    // A record written twice in the batch is indexed as last written, once.
    const last = new Map<string, { change: RecordChange; text: boolean }>();
    for (const c of w.changes) last.set(c.recordId, { change: c, text: (last.get(c.recordId)?.text ?? false) || rebuilding || !textless(c) });
    const gone: string[] = [];
    const written: RecordSource[] = [];
    for (const { change, text } of last.values()) {
      if (!change.after || change.kind === 'deleted') gone.push(change.recordId);
      else if (text) written.push(change.after);
    }
    // Fan-out passes of several processes may run side by side, a delete's before the write it follows: one database's
    // entries are written by one pass at a time, and a record deleted since (that delete committed before its own
    // event could be fanned out) is not put back.
    await w.trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`search:${w.databaseId}`]);
    await index().remove(w.trx, gone);
    const live = await ctx.resolve('records.service').liveAmong(w.trx, w.workspaceId, w.databaseId, written.map((r) => r.id));
    await index().putRecords(w.trx, w.workspaceId, w.databaseId, w.fields, written.filter((r) => live.has(r.id)));
  });
  // A sync run that created many records (it says so when it ends, failed or not) has its database's entries rebuilt.
  ctx.tapFanOut({
    name: 'synced',
    events: ['source.synced'],
    handler: async (trx, events) => {
      for (const e of events) {
        const run = e.payload as { database_id: string; created: number };
        if (!e.workspace_id || run.created < SYNC_REBUILD_AT) continue;
        await index().requestRebuild(trx, e.workspace_id, run.database_id);
        await ctx.sendJob(REBUILD_JOB, {}, trx);
      }
    },
  });
  ctx.hooksOf('records.lifecycle').purged.tapPromise('search', ({ trx, recordIds }) => index().remove(trx, recordIds));
  ctx.hooksOf('databases.databases').deleted.tapPromise('search', ({ trx, databaseId }) => index().forgetDatabase(trx, databaseId));
  ctx.hooksOf('spaces.lifecycle').deleted.tapPromise('search', ({ trx, spaceId }) => index().forgetSpace(trx, spaceId));
  if (ctx.has('documents')) {
    const writes = ctx.hooksOf('documents.writes');
    writes.contentWritten.tapPromise('search', (e) =>
      index().put(e.trx, documentEntry({ id: e.documentId, workspace_id: e.workspaceId, space_id: e.spaceId, title: e.title }, { content: e.content, version: e.version })),
    );
    writes.documentDeleted.tapPromise('search', (e) => index().remove(e.trx, [e.documentId]));
  }

  ctx.subscribe({ name: 'spaces', events: ['space.created', 'space.updated', 'space.deleted'], handler: (e) => space(e) });
  ctx.subscribe({ name: 'databases', events: ['database.created', 'database.updated', 'database.deleted'], handler: (e) => database(e) });
  if (ctx.has('documents')) ctx.subscribe({ name: 'documents', events: ['document.created', 'document.updated', 'document.deleted'], handler: (e) => documentNamed(e) });
  ctx.subscribe({
    name: 'fields',
    events: ['field.updated', 'field.deleted', 'field.restored', 'field.converted'],
    handler: async (e) => {
      const payload = e.payload as Payload;
      if (!e.workspace_id || !changesText(e.name, payload)) return;
      await index().requestRebuild(ctx.db, e.workspace_id, payload.database_id);
      await ctx.sendJob(REBUILD_JOB, {});
    },
  });

  async function space(e: DomainEvent): Promise<void> {
    const id = (e.payload as Payload).space.id as string;
    const found = e.workspace_id ? await ctx.resolve('spaces.service').get(e.workspace_id, id) : null;
    if (!found) return index().forgetSpace(ctx.db, id);
    await index().put(ctx.db, spaceEntry(found));
  }

  async function database(e: DomainEvent): Promise<void> {
    const payload = e.payload as Payload;
    if (e.workspace_id) await nameDatabase(ctx, e.workspace_id, (payload.database ?? payload.after).id);
  }

  async function documentNamed(e: DomainEvent): Promise<void> {
    const id = (e.payload as Payload).document.id as string;
    const documents = ctx.resolve('documents.service');
    const found = e.workspace_id ? await unlessGone(() => documents.get(e.workspace_id!, id)) : undefined;
    const content = found && (await unlessGone(() => documents.content(found.workspace_id, id)));
    if (!found || !content) return index().remove(ctx.db, [id]);
    await index().put(ctx.db, documentEntry(found, content));
  }
}
