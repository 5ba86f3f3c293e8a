/**
 * `npm run bench -- history`: issue 17's history benchmarks on PostgreSQL. At 100,000 records, bulk creates of 100
 * and bulk patches of 200 with the activity and record-versions plugins on and off, in the same run: two servers on
 * the same schema, one with them off, measured in turns request by request, so that whatever else loads the machine
 * weighs on both alike (ratio target ≤ 1.3×); then, among 1,000,000 activity entries and 1,000,000 versions inserted
 * by SQL, a record's activity page of 50 (p50 ≤ 10 ms) and its version list (p50 ≤ 5 ms).
 * Environment: DATABASE_URL; BENCH_ITERATIONS (default 200 pairs per line), BENCH_WARMUP (10), BENCH_BUDGET seconds
 * per line (40), BENCH_SMALL records (100000), BENCH_ENTRIES (1000000).
 */
import os from 'node:os';
import { fmt } from './lib/format.ts';
import { startServer } from './lib/server.ts';
import { postgresStorage } from './lib/storage.ts';
import { Client } from './records/client.ts';
import { percentile, Report, type Timings } from './records/report.ts';
import { sample, type Request } from './records/sample.ts';
import type { Answer } from './records/client.ts';
import { seedRecords } from './records/seed.ts';
import { createBenchDatabase, type BenchDatabase } from './records/setup.ts';
import { newRecordValues } from './records/values.ts';

const env = process.env;
const ITERATIONS = Number(env.BENCH_ITERATIONS ?? 200);
const WARMUP = Number(env.BENCH_WARMUP ?? 10);
const BUDGET_MS = Number(env.BENCH_BUDGET ?? 40) * 1000;
const RECORDS = Number(env.BENCH_SMALL ?? 100_000);
const ENTRIES = Number(env.BENCH_ENTRIES ?? 1_000_000);
const HISTORY = 'activity,record-versions';
const options = (status: number, iterations = ITERATIONS) => ({ iterations, budgetMs: BUDGET_MS, minimum: Math.min(iterations, 50), warmup: WARMUP, status });

console.log(`Tessera history benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
const storage = postgresStorage(1);
console.log(`\n${storage.label} — ${fmt(RECORDS)} records, ${fmt(ENTRIES)} activity entries and versions`);
const report = new Report(true);

/**
 * The same writes on both servers in turns (which goes first alternates), `WARMUP` unmeasured pairs first: each
 * request its own, built outside the timed part.
 */
async function paired(off: Client, on: Client, status: number, next: () => Request): Promise<{ off: Timings; on: Timings }> {
  const result = { off: { ms: [], bad: 0 } as Timings, on: { ms: [], bad: 0 } as Timings };
  const run = async (client: Client, t: Timings, measured: boolean) => {
    const r = next();
    const answer: Answer = await client.request(r.method, r.path, r.body);
    if (answer.status !== status) {
      t.bad++;
      t.firstBad ??= `${answer.status} ${answer.text.slice(0, 200)}`;
    }
    if (measured) t.ms.push(answer.ms);
  };
  const deadline = performance.now() + BUDGET_MS;
  for (let i = 0; i < WARMUP + ITERATIONS && (i < WARMUP + 50 || performance.now() < deadline); i++) {
    const measured = i >= WARMUP;
    const sides: Array<[Client, Timings]> = [[off, result.off], [on, result.on]];
    if (i % 2 === 1) sides.reverse();
    for (const [client, t] of sides) await run(client, t, measured);
  }
  return result;
}

/** Bulk creates of 100 and bulk patches of 200 records spread over the table, each request with values of its own. */
function writes(bench: BenchDatabase, ids: string[]) {
  let serial = 0;
  return {
    create: (): Request => {
      const base = serial++ * 100;
      return { method: 'POST', path: bench.records, body: JSON.stringify({ records: Array.from({ length: 100 }, (_, k) => ({ values: newRecordValues(bench, base + k) })) }) };
    },
    patch: (): Request => {
      const n = serial++;
      const chosen = Array.from({ length: 200 }, (_, k) => ids[(n * 211 + k * 9) % ids.length]);
      return { method: 'PATCH', path: bench.records, body: JSON.stringify({ records: [...new Set(chosen)].map((id, k) => ({ id, values: { priority: ((n + k) % 5) + 1, amount: n * 1000 + k } })) }) };
    },
  };
}

const server = await startServer(storage);
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

  report.note(`writes: sequential requests with the editor's PAT, in turns on a server with history off and one with it on; ${WARMUP} warm-up pairs, then up to ${ITERATIONS}`);
  const without = await startServer(storage, null, 'server.ts', { BENCH_PLUGINS_OFF: HISTORY });
  const offClient = new Client(without.url, bench.pat);
  const onClient = new Client(server.url, bench.pat);
  try {
    const make = writes(bench, ids);
    for (const [name, status, next] of [['bulk create 100', 201, make.create], ['bulk patch 200', 200, make.patch]] as const) {
      const t = await paired(offClient, onClient, status, next);
      report.latency(`${name}, history off`, t.off, []);
      report.latency(`${name}, history on`, t.on, []);
      const ratio = percentile(t.on.ms, 50) / percentile(t.off.ms, 50);
      report.note(`${`ratio on/off: ${name}`.padEnd(44)} ${fmt(ratio, 2)}× at p50 (target ≤ 1.3×) ${ratio <= 1.3 ? 'PASS' : 'MISS'}`);
    }
  } finally {
    offClient.close();
    onClient.close();
    await without.stop();
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
