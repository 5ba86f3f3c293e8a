/**
 * `npm run bench -- billing`: what holding writes to a plan's limits costs a record create. Two servers of this build,
 * each on its own copy of the same data (BENCH_SMALL records seeded by SQL, default 20,000): one with billing on (a
 * provider configured, plans whose limits the bench stays under: every create is checked and counted), one with no
 * provider (no billing: nothing checks or counts). Requests alternate between them, so whatever else loads the
 * machine weighs on both alike (which goes first swaps every turn). Lines: create one record and bulk create of 100,
 * p50, sequential, and the median of the differences between the two requests of each turn. Target: billing on adds
 * ≤ 0.2 ms to a single create. What billing adds is one prepared single-row UPDATE in the write's transaction: the
 * yardstick is that statement alone on the same database (PostgreSQL over loopback, PGlite in this process), timed in
 * the same run; where it takes longer than 0.2 ms here, the target becomes that statement's time.
 *
 *   --pg | --pglite     only that database (default: both, PostgreSQL first)
 * Environment: DATABASE_URL; BENCH_ITERATIONS pairs per line (default 300), BENCH_WARMUP (30), BENCH_BUDGET seconds per line (40), BENCH_SMALL records.
 */
import os from 'node:os';
import pg from 'pg';
import { fmt } from './lib/format.ts';
import { PG_URL, pgliteStorage, postgresStorage, type Storage } from './lib/storage.ts';
import { Client } from './records/client.ts';
import { percentile, Report, type Timings } from './records/report.ts';
import { PGlite } from '@electric-sql/pglite';
import type { Request } from './records/sample.ts';
import { seededServer, type SeededServer } from './records/seeded-server.ts';
import { newRecordValues } from './records/values.ts';

const env = process.env;
const ITERATIONS = Number(env.BENCH_ITERATIONS ?? 300);
const WARMUP = Number(env.BENCH_WARMUP ?? 30);
const BUDGET_MS = Number(env.BENCH_BUDGET ?? 40) * 1000;
const SMALL = Number(env.BENCH_SMALL ?? 20_000);
const TARGET_MS = 0.2;
const args = new Set(process.argv.slice(2));

const ROOMY = { members: 1_000, records: 100_000_000, storage_bytes: null, automation_runs_per_month: null, ai_credits_per_month: null };
/** Billing on: Stripe configured (never called by a create: the address is a closed port) and a free plan with room. */
const BILLING_ON = {
  billing: { provider: 'stripe', plans: [{ id: 'free', name: 'Free', limits: ROOMY }, { id: 'pro', name: 'Pro', price_id: 'price_bench', limits: ROOMY }] },
  'payments-stripe': { secretKey: 'sk_test_bench', webhookSecret: 'whsec_bench', apiUrl: 'http://127.0.0.1:9' },
};

interface Side {
  storage: Storage;
  served: SeededServer;
  client: Client;
}

async function side(make: () => Storage, pluginOptions: object | null): Promise<Side> {
  const storage = make();
  try {
    const served = await seededServer(storage, SMALL, { env: pluginOptions ? { BENCH_PLUGIN_OPTIONS: JSON.stringify(pluginOptions) } : {} });
    return { storage, served, client: new Client(served.server.url, served.bench.pat) };
  } catch (err) {
    await storage.cleanup();
    throw err;
  }
}

async function close(s: Side): Promise<void> {
  s.client.close();
  await s.served.server.stop();
  await s.storage.cleanup();
}

function creates(s: Side) {
  const path = s.served.bench.records;
  return {
    one: (i: number): Request => ({ method: 'POST', path, body: JSON.stringify({ values: newRecordValues(s.served.bench, i) }) }),
    bulk: (i: number): Request => ({ method: 'POST', path, body: JSON.stringify({ records: Array.from({ length: 100 }, (_, k) => ({ values: newRecordValues(s.served.bench, 1_000_000 + i * 100 + k) })) }) }),
  };
}

const COUNT_IN = 'UPDATE bench_count SET used = used + $2 WHERE id = $1 AND (cap IS NULL OR used + $2 <= cap) RETURNING used';

/** p50 of the counting statement (a single-row UPDATE … RETURNING) in a transaction, alone on `kind`'s database. */
async function countingStatement(kind: Storage['kind']): Promise<number> {
  const pgClient = kind === 'postgres' ? new pg.Client({ connectionString: PG_URL }) : null;
  const lite = pgClient ? null : new PGlite();
  await pgClient?.connect();
  const run = (text: string, values: unknown[] = []) => (pgClient ? pgClient.query({ ...(values.length ? { name: 'bench_count_in' } : {}), text, values }) : lite!.query(text, values));
  try {
    await run('BEGIN');
    await run('CREATE TEMP TABLE bench_count (id int PRIMARY KEY, used bigint NOT NULL, cap bigint) ON COMMIT DROP');
    await run('INSERT INTO bench_count VALUES (1, 0, NULL)');
    const ms: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const started = performance.now();
      await run(COUNT_IN, [1, 1]);
      if (i >= 200) ms.push(performance.now() - started);
    }
    await run('ROLLBACK');
    return percentile(ms, 50);
  } finally {
    await pgClient?.end();
    await lite?.close();
  }
}

/** Requests to both servers in turns, the first of each turn swapping; answers each side's timings and each turn's difference (on − off). */
async function inTurns(on: Client, off: Client, make: { on: (i: number) => Request; off: (i: number) => Request }): Promise<{ on: Timings; off: Timings; differences: number[] }> {
  const result = { on: { ms: [], bad: 0 } as Timings, off: { ms: [], bad: 0 } as Timings, differences: [] as number[] };
  const deadline = performance.now() + BUDGET_MS;
  for (let i = 0; i < WARMUP + ITERATIONS && (i < WARMUP + 50 || performance.now() < deadline); i++) {
    const send = async (client: Client, r: Request, t: Timings) => {
      const answer = await client.request(r.method, r.path, r.body);
      if (answer.status !== 201) {
        t.bad++;
        t.firstBad ??= `${answer.status} ${answer.text.slice(0, 200)}`;
      }
      return answer.ms;
    };
    let onMs: number;
    let offMs: number;
    if (i % 2 === 0) {
      onMs = await send(on, make.on(i), result.on);
      offMs = await send(off, make.off(i), result.off);
    } else {
      offMs = await send(off, make.off(i), result.off);
      onMs = await send(on, make.on(i), result.on);
    }
    if (i < WARMUP) continue;
    result.on.ms.push(onMs);
    result.off.ms.push(offMs);
    result.differences.push(onMs - offMs);
  }
  return result;
}

async function compare(name: string, make: () => Storage): Promise<boolean> {
  console.log(`\n${name} — ${fmt(SMALL)} records on each server, seeded by SQL`);
  const report = new Report(false);
  const on = await side(make, BILLING_ON);
  let off: Side | null = null;
  try {
    off = await side(make, null);
    report.note(`yardstick: the same build with no payment provider (billing off); requests in turns, ${WARMUP} warm-up pairs, then up to ${ITERATIONS}`);
    const kind = make().kind;
    const lines = [
      ['create one (POST R)', 'one'],
      ['bulk create 100 (POST R)', 'bulk'],
    ] as const;
    for (const [line, shape] of lines) {
      const sampled = await inTurns(on.client, off.client, { on: creates(on)[shape], off: creates(off)[shape] });
      report.latency(`${line}, billing on`, sampled.on, []);
      report.latency(`${line}, billing off`, sampled.off, []);
      const statement = await countingStatement(kind);
      const target = Math.max(TARGET_MS, statement);
      const added = percentile(sampled.differences, 50);
      report.note(`${`one counting statement alone (${kind})`.padEnd(44)} ${fmt(statement, 3)} ms at p50`);
      report.note(`${'billing adds: p50 on − p50 off'.padEnd(44)} ${fmt(percentile(sampled.on.ms, 50) - percentile(sampled.off.ms, 50), 3)} ms, ${fmt(percentile(sampled.on.ms, 50) / percentile(sampled.off.ms, 50), 2)}×`);
      const verdict = shape === 'one' ? ` (target ≤ ${fmt(target, 3)} ms) ${added <= target ? 'PASS' : 'MISS'}` : '';
      report.note(`${`billing adds: ${line.split(' (')[0]}, median of turns`.padEnd(44)} ${fmt(added, 3)} ms${verdict}`);
    }
    return !report.invalid;
  } finally {
    if (off) await close(off);
    await close(on);
  }
}

console.log(`Tessera billing benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
let ok = true;
if (!args.has('--pglite')) ok = (await compare('PostgreSQL, 1 process', () => postgresStorage(1))) && ok;
if (!args.has('--pg')) ok = (await compare('PGlite, 1 process', pgliteStorage)) && ok;
process.exitCode = ok ? 0 : 1;
