import { unzipSync, strFromU8 } from 'fflate';
import type { TestKernel } from '../../../core/testing.ts';

/**
 * Where `needles` still appear, case-insensitively: every text, varchar, json and jsonb column of every table of
 * this kernel's schema and of its job queue's schema, found through information_schema. `table.column` per hit.
 */
export async function traces(t: TestKernel, needles: string[]): Promise<string[]> {
  const { rows: columns } = await t.db.raw<{ rows: Array<{ table_schema: string; table_name: string; column_name: string }> }>(
    `SELECT c.table_schema, c.table_name, c.column_name
       FROM information_schema.columns c
       JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name AND tb.table_type = 'BASE TABLE'
      WHERE c.data_type IN ('text', 'character varying', 'json', 'jsonb')
        AND (c.table_schema = current_schema() OR c.table_schema = current_schema() || '_jobs' OR (current_schema() = 'public' AND c.table_schema = 'pgboss'))`,
  );
  if (columns.length < 20) throw new Error(`the scan found only ${columns.length} columns`);
  const hits: string[] = [];
  for (const { table_schema, table_name, column_name } of columns) {
    for (const needle of needles) {
      const { rows } = await t.db.raw<{ rows: Array<{ n: number }> }>('SELECT count(*)::int AS n FROM ??.?? WHERE ??::text ILIKE ?', [table_schema, table_name, column_name, `%${needle}%`]);
      if (rows[0]!.n > 0) hits.push(`${table_name}.${column_name} holds ${needle}`);
    }
  }
  return hits;
}

/** Polls an export until its job is done (ready or failed); the job runs on the kernel's own workers. */
export async function finished(t: TestKernel, path: string, auth: Record<string, string>): Promise<{ status: string; download_url: string | null; expires_at: string | null; id: string }> {
  for (let i = 0; i < 200; i++) {
    const res = await t.request.get(path).set(auth);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    if (res.body.status !== 'queued' && res.body.status !== 'running') return res.body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${path} never finished`);
}

/** The JSON files of a zip, parsed, by file name (the files sections carry, under `<kind>/`, left out). */
export function unzipJson(bytes: Buffer): Record<string, unknown[]> {
  const entries = Object.entries(unzipSync(new Uint8Array(bytes))).filter(([name]) => name.endsWith('.json') && !name.includes('/'));
  return Object.fromEntries(entries.map(([name, data]) => [name, JSON.parse(strFromU8(data)) as unknown[]]));
}
