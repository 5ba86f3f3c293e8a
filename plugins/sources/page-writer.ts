import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/canonical-json.ts';
import type { Db } from '../../core/db.ts';
import type { ErrorDetail } from '../../core/errors.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { DecodedValues, RecordBulkService, RecordService, WriteOrigin } from '../records/public.ts';
import type { SourceRow as ReadRow } from './hooks.ts';
import { ROWS, type SourceRow } from './store.ts';

/** What one page did, added to its run's counts. */
export interface PageOutcome {
  created: number;
  updated: number;
  deleted: number;
  skipped: number;
  errors: Array<{ key: string; detail: string }>;
}

/** A row of `source_rows`: where a key's record is and what was last written to it. */
interface Kept {
  key: string;
  record_id: string;
  hash: string;
  gone: boolean;
}

export interface PageContext {
  trx: Db;
  source: SourceRow;
  runId: string;
  principal: UserPrincipal;
  origin: WriteOrigin;
  records: RecordService;
  bulk: RecordBulkService;
}

/**
 * Writes one page of a source's rows in the caller's transaction, through the records write path (history, events,
 * search and automations see them, with origin `sync`): rows never seen become records, rows whose values changed
 * since they were last written update theirs, rows gone at the source are deleted or kept as the source says, and
 * unchanged rows are only marked seen. Rows are matched by key. A value the database refuses skips its row (counted,
 * the first reasons kept) and leaves its key as it was, so the next run tries it again.
 */
export async function writePage(ctx: PageContext, page: ReadRow[]): Promise<PageOutcome> {
  const { trx, source, runId } = ctx;
  const out: PageOutcome = { created: 0, updated: 0, deleted: 0, skipped: 0, errors: [] };
  const rows = [...new Map(page.map((r) => [r.key, r])).values()];
  if (rows.length === 0) return out;
  const kept = new Map(((await trx(ROWS).where({ source_id: source.id }).whereIn('key', rows.map((r) => r.key)).select('key', 'record_id', 'hash', 'gone')) as Kept[]).map((k) => [k.key, k]));
  const live = await ctx.records.liveAmong(trx, source.workspace_id, source.database_id, [...kept.values()].map((k) => k.record_id));
  const table = await ctx.records.readTable(source.workspace_id, source.database_id, trx);
  const apiNameOf = new Map(table.fields.map((f) => [f.id, f.api_name]));

  const valuesOf = (row: ReadRow) => {
    const values: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row.values)) {
      const fieldId = source.fields[key];
      const apiName = fieldId ? apiNameOf.get(fieldId) : undefined;
      if (apiName) values[apiName] = value === undefined ? null : value;
    }
    return values;
  };
  const refused: string[] = [];
  const refuse = (key: string, detail: string) => {
    out.skipped++;
    refused.push(key);
    if (out.errors.length < 100) out.errors.push({ key, detail });
  };

  const toCreate: Array<{ key: string; values: Record<string, unknown>; hash: string }> = [];
  const toUpdate: Array<{ key: string; id: string; values: Record<string, unknown>; hash: string }> = [];
  const toDelete: Kept[] = [];
  const marks: Array<{ key: string; record_id: string; hash: string; gone: boolean }> = [];
  for (const row of rows) {
    const was = kept.get(row.key);
    const isLive = was ? live.has(was.record_id) : false;
    if (row.deleted) {
      if (was && !was.gone) {
        if (source.delete_policy === 'delete' && isLive) toDelete.push(was);
        marks.push({ ...was, gone: true });
      }
      continue;
    }
    const values = valuesOf(row);
    const hash = hashOf(values);
    if (!was || !isLive) toCreate.push({ key: row.key, values, hash });
    else if (was.hash !== hash || was.gone) toUpdate.push({ key: row.key, id: was.record_id, values, hash });
    else marks.push({ ...was, gone: false });
  }

  if (toCreate.length > 0) {
    const writer = await ctx.records.batchWriter(trx, ctx.principal, source.workspace_id, source.database_id, ctx.origin);
    const checked: Array<{ key: string; hash: string; decoded: DecodedValues }> = [];
    for (const c of toCreate) {
      const problems: ErrorDetail[] = [];
      const decoded = writer.decode(c.values, problems);
      if (problems.length > 0) refuse(c.key, problems.map((p) => `${p.pointer}: ${p.detail}`).join(' '));
      else checked.push({ key: c.key, hash: c.hash, decoded });
    }
    const strangers = new Set((await writer.unknownUsers(checked.map((c) => c.decoded))).map((u) => u.index));
    const written = checked.filter((c, i) => {
      if (strangers.has(i)) refuse(c.key, 'A user cell names someone who is not a member of this workspace.');
      return !strangers.has(i);
    });
    try {
      const ids = await writer.write(written.map((c) => c.decoded));
      written.forEach((c, i) => marks.push({ key: c.key, record_id: ids[i], hash: c.hash, gone: false }));
      out.created += ids.length;
    } finally {
      await writer.finish();
    }
  }
  if (toUpdate.length > 0) {
    const { errors } = await ctx.bulk.update(ctx.principal, source.workspace_id, source.database_id, { records: toUpdate.map((u) => ({ id: u.id, values: u.values })) }, trx, ctx.origin);
    const failed = new Map(errors.map((e) => [e.id, e.detail]));
    for (const u of toUpdate) {
      const detail = failed.get(u.id);
      if (detail) refuse(u.key, detail);
      else marks.push({ key: u.key, record_id: u.id, hash: u.hash, gone: false });
    }
    out.updated += toUpdate.length - failed.size;
  }
  if (toDelete.length > 0) {
    out.deleted += (await ctx.bulk.delete(ctx.principal, source.workspace_id, source.database_id, toDelete.map((d) => d.record_id), trx, ctx.origin)).length;
  }
  // A refused row is still at the source: listed, so a snapshot does not take it for gone, and kept as last written.
  for (const key of refused) {
    const was = kept.get(key);
    if (was) marks.push(was);
  }
  await markRows(trx, source.id, runId, marks);
  return out;
}

/** Saves what each key's record is now, and that this run listed it. */
async function markRows(trx: Db, sourceId: string, runId: string, marks: Array<{ key: string; record_id: string; hash: string; gone: boolean }>): Promise<void> {
  if (marks.length === 0) return;
  await trx.raw(
    `INSERT INTO ${ROWS} (source_id, key, record_id, hash, seen_run, gone)
     SELECT ?::uuid, k, r, h, ?::uuid, g FROM unnest(?::text[], ?::uuid[], ?::text[], ?::boolean[]) AS m(k, r, h, g)
     ON CONFLICT (source_id, key) DO UPDATE SET record_id = excluded.record_id, hash = excluded.hash, seen_run = excluded.seen_run, gone = excluded.gone`,
    [sourceId, runId, marks.map((m) => m.key), marks.map((m) => m.record_id), marks.map((m) => m.hash), marks.map((m) => m.gone)],
  );
}

/** What a row's values hash to: a row whose hash has not changed since it was written is left alone. */
export function hashOf(values: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson(values)).digest('base64url').slice(0, 27);
}
