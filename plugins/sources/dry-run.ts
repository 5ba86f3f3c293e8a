import type { Db } from '../../core/db.ts';
import type { RecordService } from '../records/public.ts';
import type { SourceKind } from './hooks.ts';
import type { SourceInputs } from './inputs.ts';
import { hashOf } from './page-writer.ts';
import type { DryRun } from './schemas.ts';
import { ROWS, type SourceRow } from './store.ts';

const SAMPLES = 5;

/**
 * What a run would change, reading the source as a run would and writing nothing: rows it would create, update
 * (their values changed since last written) and delete (gone at the source by its own word, or unlisted by a
 * snapshot, when the delete policy deletes), with a few of each.
 */
export async function dryRun(db: Db, records: RecordService, inputs: SourceInputs, kind: SourceKind, source: SourceRow, full: boolean): Promise<DryRun> {
  const out: DryRun = { create: 0, update: 0, delete: 0, samples: { create: [], update: [], delete: [] } };
  const table = await records.readTable(source.workspace_id, source.database_id);
  const apiNameOf = new Map(table.fields.map((f) => [f.id, f.api_name]));
  const input = await inputs.forConfig(kind.provider, source.connection_id, source.config);
  const listed = new Set<string>();
  let snapshot = false;
  for await (const page of kind.read({ ...input, cursor: full ? null : source.cursor })) {
    snapshot ||= page.snapshot;
    const keys = page.rows.map((r) => r.key);
    const kept = new Map(((await db(ROWS).where({ source_id: source.id }).whereIn('key', keys).select('key', 'hash', 'gone')) as Array<{ key: string; hash: string; gone: boolean }>).map((k) => [k.key, k]));
    for (const row of page.rows) {
      listed.add(row.key);
      const was = kept.get(row.key);
      if (row.deleted) {
        if (was && !was.gone && source.delete_policy === 'delete') {
          out.delete++;
          if (out.samples.delete.length < SAMPLES) out.samples.delete.push({ key: row.key });
        }
        continue;
      }
      const values: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(row.values)) {
        const apiName = source.fields[key] ? apiNameOf.get(source.fields[key]) : undefined;
        if (apiName) values[apiName] = value ?? null;
      }
      if (!was) {
        out.create++;
        if (out.samples.create.length < SAMPLES) out.samples.create.push({ key: row.key, values });
      } else if (was.hash !== hashOf(values) || was.gone) {
        out.update++;
        if (out.samples.update.length < SAMPLES) out.samples.update.push({ key: row.key, values });
      }
    }
  }
  if (snapshot && source.delete_policy === 'delete') {
    for (const { key } of (await db(ROWS).where({ source_id: source.id, gone: false }).select('key')) as Array<{ key: string }>) {
      if (listed.has(key)) continue;
      out.delete++;
      if (out.samples.delete.length < SAMPLES) out.samples.delete.push({ key });
    }
  }
  return out;
}
