/**
 * `npm run bench -- history`: issue 17's history benchmarks on PostgreSQL. At 100,000 records, bulk creates of 100
 * and bulk patches of 200 with the activity and record-versions plugins on and off, in the same run, alternating
 * servers on the same schema (ratio target ≤ 1.3×); then, among 1,000,000 activity entries and 1,000,000 versions
 * inserted by SQL, a record's activity page of 50 (p50 ≤ 10 ms) and its version list (p50 ≤ 5 ms).
 * Environment: DATABASE_URL; BENCH_ITERATIONS (default 100 per line and round), BENCH_WARMUP (10), BENCH_BUDGET
 * seconds per line (20), BENCH_ROUNDS of off/on (2), BENCH_SMALL records (100000), BENCH_ENTRIES (1000000).
 */
import os from 'node:os';
import { fmt } from './lib/format.ts';
import { startServer, type Server } from './lib/server.ts';
import { postgresStorage } from './lib/storage.ts';
import { Client } from './records/client.ts';
import { percentile, Report, type Timings } from './records/report.ts';
import { sample, type Request } from './records/sample.ts';
import { seedRecords } from './records/seed.ts';
import { createBenchDatabase, type BenchDatabase } from './records/setup.ts';
import { newRecordValues } from './records/values.ts';

const env = process.env;
const ITERATIONS = Number(env.BENCH_ITERATIONS ?? 100);
const WARMUP = Number(env.BENCH_WARMUP ?? 10);
const BUDGET_MS = Number(env.BENCH_BUDGET ?? 20) * 1000;
const ROUNDS = Number(env.BENCH_ROUNDS ?? 2);
const RECORDS = Number(env.BENCH_SMALL ?? 100_000);
const ENTRIES = Number(env.BENCH_ENTRIES ?? 1_000_000);
const HISTORY = 'activity,record-versions';
const options = (status: number, iterations = ITERATIONS) => ({ iterations, budgetMs: BUDGET_MS, minimum: Math.min(iterations, 50), warmup: WARMUP, status });

console.log(`Tessera history benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
const storage = postgresStorage(1);
console.log(`\n${storage.label} — ${fmt(RECORDS)} records, ${fmt(ENTRIES)} activity entries and versions`);
const report = new Report(true);

/** Each measured write differs from every other, so that each one changes its records and history has something to keep. */
let serial = 0;

/** Bulk creates of 100 and bulk patches of 200 (spread over the table, new values each time) on one server. */
async function measureWrites(server: Server, bench: BenchDatabase, ids: string[]): Promise<{ create: Timings; patch: Timings }> {
  const client = new Client(server.url, bench.pat);
  try {
    const create = (): Request => {
      const base = serial++ * 100;
      return { method: 'POST', path: bench.records, body: JSON.stringify({ records: Array.from({ length: 100 }, (_, k) => ({ values: newRecordValues(bench, base + k) })) }) };
    };
    const patch = (): Request => {
      const n = serial++;
      const chosen = Array.from({ length: 200 }, (_, k) => ids[(n * 211 + k * 9) % ids.length]);
      return { method: 'PATCH', path: bench.records, body: JSON.stringify({ records: [...new Set(chosen)].map((id, k) => ({ id, values: { priority: ((n + k) % 5) + 1, amount: n * 1000 + k } })) }) };
    };
    return { create: await sample(client, options(201), create), patch: await sample(client, options(200), patch) };
  } finally {
    client.close();
  }
}

const pooled = (runs: Timings[]): Timings => ({ ms: runs.flatMap((t) => t.ms), bad: runs.reduce((n, t) => n + t.bad, 0), firstBad: runs.find((t) => t.firstBad)?.firstBad });

let server = await startServer(storage);
try {
  const bench = await createBenchDatabase(server.url);
  const databaseId = bench.records.split('/')[6];
  const db = await storage.open();
  let ids: string[];
  let target: string;
  try {
    const seeded = await seedRecords(db, bench, RECORDS, () => {});
    report.note(`seeded ${fmt(RECORDS)} records by SQL in ${fmt(seeded.seconds, 1)} s`);
    ids = (await db.knex(bench.table).orderBy('number').pluck('id')) as string[];
    target = ids[Math.floor(ids.length / 2)];
  } finally {
    await db.close();
  }

  report.note(`writes: sequential requests with the editor's PAT; ${WARMUP} warm-up, then up to ${ITERATIONS} per line, ${ROUNDS} rounds of history off, then on`);
  const off: Array<{ create: Timings; patch: Timings }> = [];
  const on: Array<{ create: Timings; patch: Timings }> = [];
  for (let round = 0; round < ROUNDS; round++) {
    await server.stop();
    server = await startServer(storage, null, 'server.ts', { BENCH_PLUGINS_OFF: HISTORY });
    off.push(await measureWrites(server, bench, ids));
    await server.stop();
    server = await startServer(storage);
    on.push(await measureWrites(server, bench, ids));
  }
  for (const [name, key] of [['bulk create 100', 'create'], ['bulk patch 200', 'patch']] as const) {
    const without = pooled(off.map((r) => r[key]));
    const with_ = pooled(on.map((r) => r[key]));
    report.latency(`${name}, history off`, without, []);
    report.latency(`${name}, history on`, with_, []);
    const ratio = percentile(with_.ms, 50) / percentile(without.ms, 50);
    report.note(`${`ratio on/off: ${name}`.padEnd(44)} ${fmt(ratio, 2)}× at p50 (target ≤ 1.3×) ${ratio <= 1.3 ? 'PASS' : 'MISS'}`);
  }

  const fill = await storage.open();
  const started = Date.now();
  try {
    const [{ workspace_id: ws, actor_id: actor, field }] = (
      await fill.knex.raw(
        `SELECT ?::uuid AS workspace_id, ?::uuid AS actor_id, (SELECT id FROM fields WHERE database_id = ? AND api_name = 'priority') AS field`,
        [bench.workspaceId, bench.editor.id, databaseId],
      )
    ).rows;
    // A record with one entry and one version in a thousand (1,000 of each), the rest spread over other ids, ten per record.
    await fill.knex.raw(
      `INSERT INTO activity_entries (id, workspace_id, database_id, record_id, type, actor_id, origin, changes, created_at)
       SELECT gen_random_uuid(), ?, ?, CASE WHEN g % 1000 = 0 THEN ?::uuid ELSE md5((g % ?)::text)::uuid END, 'record.updated', ?,
              jsonb_build_object('type', 'user', 'id', ?::text),
              jsonb_build_array(jsonb_build_object('field', ?::text, 'name', 'Priority', 'type', 'number', 'before', g % 5, 'after', (g + 1) % 5)),
              now() - make_interval(secs => ? - g)
         FROM generate_series(1, ?) g`,
      [ws, databaseId, target, RECORDS, actor, actor, field, ENTRIES, ENTRIES],
    );
    await fill.knex.raw(
      `INSERT INTO record_versions (record_id, seq, database_id, workspace_id, "values", changed_fields, origin, created_by, created_at)
       SELECT CASE WHEN g % 1000 = 0 THEN ?::uuid ELSE md5((g % ?)::text)::uuid END, CASE WHEN g % 1000 = 0 THEN 1000 + g / 1000 ELSE g / ? + 1 END, ?, ?,
              jsonb_build_object(?::text, g % 5),
              jsonb_build_array(?::text), jsonb_build_object('type', 'user', 'id', ?::text), ?, now() - make_interval(secs => ? - g)
         FROM generate_series(1, ?) g
       ON CONFLICT DO NOTHING`,
      [target, RECORDS, RECORDS, databaseId, ws, field, field, actor, actor, ENTRIES, ENTRIES],
    );
    await fill.knex.raw('VACUUM ANALYZE activity_entries');
    await fill.knex.raw('VACUUM ANALYZE record_versions');
  } finally {
    await fill.close();
  }
  report.note(`${fmt(ENTRIES)} activity entries and ~${fmt(ENTRIES)} versions inserted by SQL in ${fmt((Date.now() - started) / 1000, 1)} s (the record read: ~${fmt(ENTRIES / 1000)} of each)`);

  const client = new Client(server.url, bench.pat);
  try {
    const R = `${bench.records}/${target}`;
    const check = async (path: string) => {
      const answer = await client.request('GET', path);
      if (answer.status !== 200 || JSON.parse(answer.text).data?.length !== 50) throw new Error(`${path}: ${answer.status} ${answer.text.slice(0, 300)}`);
    };
    await check(`${R}/activity?limit=50`);
    await check(`${R}/versions?limit=50`);
    report.latency("a record's activity page of 50", await sample(client, options(200, 300), () => ({ method: 'GET', path: `${R}/activity?limit=50` })), [{ stat: 'p50', ms: 10 }]);
    report.latency("a record's version list (50)", await sample(client, options(200, 300), () => ({ method: 'GET', path: `${R}/versions?limit=50` })), [{ stat: 'p50', ms: 5 }]);
    const workspace = `/api/v1/workspaces/${bench.workspaceId}/activity?limit=50`;
    report.latency("the workspace's activity page of 50 (no target)", await sample(client, options(200, 300), () => ({ method: 'GET', path: workspace })), []);
  } finally {
    client.close();
  }
} finally {
  await server.stop();
  await storage.cleanup();
}
process.exitCode = report.invalid ? 1 : 0;
