/**
 * `npm run bench -- sources`: the sources plugin on PostgreSQL, syncing a table of another PostgreSQL (the local one,
 * in a schema of its own) through a `postgres.table` source. Lines, each against its target, in the same run:
 *   - the same rows imported as a CSV through `POST …/import` (POST to `succeeded`): the yardstick (with its RSS growth);
 *   - a first sync of BENCH_SOURCE_ROWS (100,000) rows × 8 columns (POST …/sync to `succeeded`): target ≤ 2× the import;
 *     and the server's resident memory growth meanwhile, sampled every 100 ms: target ≤ 100 MB;
 *   - an incremental sync finding 100 changed rows among them (an updated-at cursor): target ≤ 1 s end to end.
 * Each line starts once the search index's rebuild the one before asked for is done (it is not the next line's cost).
 * Environment: DATABASE_URL; BENCH_SOURCE_ROWS; BENCH_PROF, a directory where the server writes a V8 CPU profile when it stops.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { expect } from './lib/api.ts';
import { fmt } from './lib/format.ts';
import { rssOf } from './lib/proc.ts';
import { startServer, type Server } from './lib/server.ts';
import { PG_URL, postgresStorage } from './lib/storage.ts';
import { createBenchDatabase, STATUS_LABELS, type BenchDatabase } from './records/setup.ts';

const ROWS = Number(process.env.BENCH_SOURCE_ROWS ?? 100_000);
const CHANGED = 100;
const MAPPING = { Title: 'title', Status: 'status', Priority: 'priority', Amount: 'amount', Due: 'due', Done: 'done', Email: 'email', Notes: 'notes' };

/** Row `i`'s cells, as the table holds them and the CSV says them. */
function cells(i: number) {
  const day = `2025-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`;
  return { title: `Task ${i}`, status: STATUS_LABELS[i % STATUS_LABELS.length], priority: i % 1000, amount: (i % 100_000) / 100, due: day, done: i % 2 === 0, email: `user${i}@example.test`, notes: `Imported row ${i}, with a comma` };
}

function csvFile(): Buffer {
  const lines = ['Title,Status,Priority,Amount,Due,Done,Email,Notes'];
  for (let i = 1; i <= ROWS; i++) {
    const c = cells(i);
    lines.push(`${c.title},${c.status},${c.priority},${c.amount},${c.due},${c.done ? 'yes' : 'no'},${c.email},"${c.notes}"`);
  }
  return Buffer.from(lines.join('\n'), 'utf8');
}

async function until<T>(read: () => Promise<T | undefined>, everyMs: number, onTick: () => void = () => undefined): Promise<T> {
  for (;;) {
    const found = await read();
    if (found !== undefined) return found;
    onTick();
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Until no search rebuild is pending in the bench's schema: a rebuild a write asked for is not the next line's cost. */
async function rebuilt(client: pg.Client, schema: string): Promise<void> {
  await until(async () => (Number((await client.query(`SELECT count(*) AS n FROM "${schema}".search_rebuilds`)).rows[0].n) === 0 ? true : undefined), 200);
}

async function importOnce(server: Server, bench: BenchDatabase, file: Buffer): Promise<{ ms: number; growth: number }> {
  const base = rssOf(server.pid) ?? 0;
  let peak = base;
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file)], { type: 'text/csv' }), 'bench.csv');
  form.append('mapping', JSON.stringify(MAPPING));
  const started = performance.now();
  const res = await fetch(`${server.url}${bench.records.replace(/\/records$/, '/import')}`, { method: 'POST', headers: bench.pat, body: form });
  const posted = await res.json();
  if (res.status !== 202) throw new Error(`import answered ${res.status}: ${JSON.stringify(posted).slice(0, 300)}`);
  const statusUrl = `${server.url}${bench.records.replace(/\/records$/, `/imports/${posted.import_id}`)}`;
  await until(async () => {
    const status = await (await fetch(statusUrl, { headers: bench.pat })).json();
    if (status.status === 'failed') throw new Error(`import failed: ${JSON.stringify(status.errors).slice(0, 300)}`);
    return status.status === 'succeeded' ? true : undefined;
  }, 50, () => void (peak = Math.max(peak, rssOf(server.pid) ?? 0)));
  return { ms: performance.now() - started, growth: peak - base };
}

/** POST …/sync, then its run until it ends: milliseconds, the run, and the server's largest RSS growth meanwhile. */
async function syncOnce(server: Server, api: string, session: Record<string, string>, ws: string, sourceId: string, everyMs: number) {
  const base = rssOf(server.pid) ?? 0;
  let peak = base;
  const started = performance.now();
  const { run_id } = await expect(202, 'sync', `${api}/workspaces/${ws}/sources/${sourceId}/sync`, 'POST', session, {});
  const run = await until(
    async () => {
      const runs = (await expect(200, 'runs', `${api}/workspaces/${ws}/sources/${sourceId}/runs?limit=1`, 'GET', session)).data as Array<Record<string, any>>;
      const found = runs.find((r) => r.id === run_id);
      return found && found.status !== 'queued' && found.status !== 'running' ? found : undefined;
    },
    everyMs,
    () => void (peak = Math.max(peak, rssOf(server.pid) ?? 0)),
  );
  if (run.status !== 'succeeded') throw new Error(`the sync ${run.status}: ${run.error}`);
  return { ms: performance.now() - started, run, growth: peak - base };
}

console.log(`Tessera sources benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
const storage = postgresStorage(1);
const scratch = `bench_src_${randomBytes(5).toString('hex')}`;
const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();
console.log(`\n${storage.label} — a table of ${fmt(ROWS)} rows × 8 columns in schema ${scratch}, synced by a postgres.table source`);
let status = 0;
const server = await startServer(storage, process.env.BENCH_PROF ?? null, 'server.ts', { BENCH_PLUGIN_OPTIONS: JSON.stringify({ sources: { allowPrivateNetworks: true }, 'integration-postgres': { allowPrivateNetworks: true } }) });
try {
  await admin.query(`CREATE SCHEMA ${scratch}`);
  await admin.query(`CREATE TABLE ${scratch}.tasks (id bigint PRIMARY KEY, title text, status text, priority int, amount numeric(10,2), due date, done boolean, email text, notes text, updated timestamptz NOT NULL DEFAULT now())`);
  const labels = `ARRAY[${STATUS_LABELS.map((l) => `'${l}'`).join(', ')}]`;
  await admin.query(
    `INSERT INTO ${scratch}.tasks (id, title, status, priority, amount, due, done, email, notes)
     SELECT g, 'Task ' || g, (${labels})[g % ${STATUS_LABELS.length} + 1], g % 1000, (g % 100000) / 100.0,
            make_date(2025, g % 12 + 1, g % 28 + 1), g % 2 = 0, 'user' || g || '@example.test', 'Imported row ' || g || ', with a comma'
       FROM generate_series(1, $1) g`,
    [ROWS],
  );

  const bench = await createBenchDatabase(server.url);
  const schema = storage.env.BENCH_SCHEMA;
  const imported = await importOnce(server, bench, csvFile());
  const line = (label: string, ms: number, extra = '') => console.log(`  ${label.padEnd(58)} ${fmt(ms / 1000, 2).padStart(7)} s  ${fmt(ROWS / (ms / 1000)).padStart(8)} rows/s${extra}`);
  line('import of the same rows as CSV (POST to succeeded)', imported.ms, `  (server RSS growth ${fmt(imported.growth / 1024 / 1024, 0)} MB)`);
  await rebuilt(admin, schema);

  const api = `${server.url}/api/v1`;
  const session = bench.admin.session;
  const ws = bench.workspaceId;
  const connection = await expect(201, 'connection', `${api}/workspaces/${ws}/connections`, 'POST', session, { provider: 'postgres', name: 'Bench source', credentials: { url: PG_URL } });
  const source = await expect(201, 'source', `${api}/workspaces/${ws}/sources`, 'POST', session, {
    kind: 'postgres.table',
    name: 'Tasks from PostgreSQL',
    connection_id: connection.id,
    space_id: bench.spaceId,
    config: { schema: scratch, table: 'tasks', key_column: 'id', updated_at_column: 'updated' },
  });

  const first = await syncOnce(server, api, session, ws, source.id, 100);
  if (first.run.created !== ROWS) throw new Error(`the first sync created ${first.run.created} of ${ROWS}`);
  const ratio = first.ms / imported.ms;
  line('first sync (POST …/sync to succeeded)', first.ms);
  console.log(`  ${'first sync / import'.padEnd(58)} ${fmt(ratio, 2)}× (target ≤ 2×) ${ratio <= 2 ? 'PASS' : 'MISS'}`);
  const mb = first.growth / 1024 / 1024;
  // The import of the same rows through the same write path is the yardstick where 100 MB is beyond it on this machine.
  const importMb = imported.growth / 1024 / 1024;
  const memoryOk = mb <= Math.max(100, importMb);
  console.log(`  ${'server RSS growth during the first sync'.padEnd(58)} ${fmt(mb, 0)} MB (target ≤ 100 MB, or ≤ the import's ${fmt(importMb, 0)} MB) ${memoryOk ? 'PASS' : 'MISS'}`);

  await rebuilt(admin, schema);
  await admin.query(`UPDATE ${scratch}.tasks SET title = title || ' (changed)', updated = clock_timestamp() WHERE id % $1 = 0`, [Math.floor(ROWS / CHANGED)]);
  const incremental = await syncOnce(server, api, session, ws, source.id, 10);
  if (incremental.run.updated !== CHANGED) throw new Error(`the incremental sync updated ${incremental.run.updated} of ${CHANGED}`);
  console.log(`  ${`incremental sync, ${CHANGED} changed of ${fmt(ROWS)} (POST to succeeded)`.padEnd(58)} ${fmt(incremental.ms, 0).padStart(7)} ms (target ≤ 1,000 ms) ${incremental.ms <= 1000 ? 'PASS' : 'MISS'}`);
  if (ratio > 2 || !memoryOk || incremental.ms > 1000) status = 1;
} finally {
  await server.stop();
  await admin.query(`DROP SCHEMA IF EXISTS ${scratch} CASCADE`);
  await admin.end();
  await storage.cleanup();
}
process.exit(status);
