/**
 * `npm run bench -- writes`: what the plugins that keep something about a record write cost it. Two servers of this
 * build, each on its own copy of the same data (100,000 records seeded by SQL), one with every built-in plugin on and
 * one with history, search, notifications, webhooks and automations off (and approvals and buttons, which need
 * automations); requests alternate between them, so that whatever else loads the machine weighs on both alike. Lines:
 * patch one record, bulk create of 100, bulk patch of 200 (p50, sequential) and a load of bulk creates (records per
 * second, four clients, in alternating slices, each slice timed until the server has also done what follows its writes
 * after commit). Targets, as ratios on/off: ≤ 1.3× for the three latencies, ≥ 0.8× for
 * the load; on PostgreSQL and on PGlite.
 *
 *   --pg | --pglite     only that database (default: both, PostgreSQL first)
 * Environment: DATABASE_URL; BENCH_ON_OFF (plugins also off on the "all" server, to find one plugin's share); BENCH_ITERATIONS pairs per line (default 200), BENCH_WARMUP (20), BENCH_BUDGET seconds per
 * line (40), BENCH_SMALL records (100000), BENCH_PGLITE_SMALL (default BENCH_SMALL), BENCH_LOAD_SECONDS per server (10).
 */
import os from 'node:os';
import pg from 'pg';
import { fmt } from './lib/format.ts';
import { backendsCpu, cpuOf } from './lib/proc.ts';
import type { Server } from './lib/server.ts';
import { PG_URL, pgliteStorage, postgresStorage, type Storage } from './lib/storage.ts';
import { Client } from './records/client.ts';
import { percentile, Report, type Timings } from './records/report.ts';
import { sampleInTurn, type Request } from './records/sample.ts';
import { seededServer } from './records/seeded-server.ts';
import type { BenchDatabase } from './records/setup.ts';
import { newRecordValues } from './records/values.ts';

const env = process.env;
const ITERATIONS = Number(env.BENCH_ITERATIONS ?? 200);
const WARMUP = Number(env.BENCH_WARMUP ?? 20);
const BUDGET_MS = Number(env.BENCH_BUDGET ?? 40) * 1000;
const SMALL = Number(env.BENCH_SMALL ?? 100_000);
const PGLITE_SMALL = Number(env.BENCH_PGLITE_SMALL ?? SMALL);
const LOAD_SECONDS = Number(env.BENCH_LOAD_SECONDS ?? 10);
const LOAD_CLIENTS = 4;
/** Slices of the load, alternating between the servers. */
const LOAD_SLICE_MS = 2000;
/** What the yardstick server runs without: the plugins that tap record writes, and those that cannot run without them. */
const WRITE_TAPS_OFF = 'activity,record-versions,search,notifications,webhooks,automations,approvals,buttons';
const args = new Set(process.argv.slice(2));
const options = (status: number) => ({ iterations: ITERATIONS, budgetMs: BUDGET_MS, minimum: Math.min(ITERATIONS, 50), warmup: WARMUP, status });

/** One server on data of its own: the records seeded by SQL, then the server (re)started on them. */
interface Side {
  storage: Storage;
  server: Server;
  bench: BenchDatabase;
  /** Up to 2,000 of the seeded records, spread over the table: what the patches write. */
  ids: string[];
  client: Client;
}

async function side(make: () => Storage, count: number, pluginsOff: string): Promise<Side> {
  const storage = make();
  try {
    const { server, bench, seeded } = await seededServer(storage, count, { env: pluginsOff ? { BENCH_PLUGINS_OFF: pluginsOff } : {} });
    return { storage, server, bench, ids: seeded.ids, client: new Client(server.url, bench.pat) };
  } catch (err) {
    await storage.cleanup();
    throw err;
  }
}

async function close(s: Side): Promise<void> {
  s.client.close();
  await s.server.stop();
  await s.storage.cleanup();
}

/** The requests of each line for one side: each request with values of its own, records spread over the table. */
function writes(s: Side) {
  const pick = (n: number, k: number) => s.ids[(n * 211 + k * 9973) % s.ids.length];
  return {
    patchOne: (i: number): Request => ({ method: 'PATCH', path: `${s.bench.records}/${pick(i, 0)}`, body: JSON.stringify({ values: { priority: (i % 5) + 1, notes: `Patched by the writes benchmark, request ${i}.` } }) }),
    create: (i: number): Request => ({ method: 'POST', path: s.bench.records, body: JSON.stringify({ records: Array.from({ length: 100 }, (_, k) => ({ values: newRecordValues(s.bench, i * 100 + k) })) }) }),
    patchMany: (i: number): Request => {
      const chosen = [...new Set(Array.from({ length: 200 }, (_, k) => pick(i, k)))];
      return { method: 'PATCH', path: s.bench.records, body: JSON.stringify({ records: chosen.map((id, k) => ({ id, values: { priority: ((i + k) % 5) + 1, amount: i * 1000 + k } })) }) };
    },
  };
}

/** `LOAD_CLIENTS` clients on `s` posting bulks of 100 back to back until `deadline`; answers into `t`. */
async function loadSlice(s: Side, deadline: number, t: Timings, serial: { n: number }): Promise<void> {
  const clients = Array.from({ length: LOAD_CLIENTS }, () => new Client(s.server.url, s.bench.pat));
  const make = writes(s).create;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < deadline) {
        const r = make(1_000_000 + serial.n++);
        const answer = await client.request(r.method, r.path, r.body);
        t.ms.push(answer.ms);
        if (answer.status !== 201) {
          t.bad++;
          t.firstBad ??= `${answer.status} ${answer.text.slice(0, 200)}`;
        }
      }
    }),
  );
  for (const client of clients) client.close();
}

async function compare(name: string, make: () => Storage, count: number): Promise<boolean> {
  console.log(`\n${name} — ${fmt(count)} records on each server, seeded by SQL`);
  // Ratios are the targets here, printed by this suite; the lines carry figures only.
  const report = new Report(false);
  const on = await side(make, count, env.BENCH_ON_OFF ?? '');
  let off: Side | null = null;
  try {
    off = await side(make, count, WRITE_TAPS_OFF);
    report.note(`yardstick: the same build with ${WRITE_TAPS_OFF} off; requests in turns, ${WARMUP} warm-up pairs, then up to ${ITERATIONS}`);
    const [onWrites, offWrites] = [writes(on), writes(off)];
    const lines = [
      ['patch one (PATCH R/{id})', 200, 'patchOne'],
      ['bulk create 100 (POST R)', 201, 'create'],
      ['bulk patch 200 (PATCH R)', 200, 'patchMany'],
    ] as const;
    for (const [name, status, kind] of lines) {
      const [t, yard] = await sampleInTurn([{ client: on.client, next: onWrites[kind] }, { client: off.client, next: offWrites[kind] }], options(status));
      report.latency(`${name}, all`, t, []);
      report.latency(`${name}, taps off`, yard, []);
      const ratio = percentile(t.ms, 50) / percentile(yard.ms, 50);
      report.note(`${`ratio all/off: ${name.split(' (')[0]}`.padEnd(44)} ${fmt(ratio, 2)}× at p50 (target ≤ 1.3×) ${ratio <= 1.3 ? 'PASS' : 'MISS'}`);
    }
    const loads = { on: { ms: [], bad: 0 } as Timings, off: { ms: [], bad: 0 } as Timings };
    const spent = { on: 0, off: 0 };
    const cpu = { on: { server: 0, db: 0 }, off: { server: 0, db: 0 } };
    const serial = { n: 0 };
    const backends = make().kind === 'postgres' ? new pg.Client({ connectionString: PG_URL }) : null;
    await backends?.connect();
    for (let slice = 0; spent.on < LOAD_SECONDS * 1000 || spent.off < LOAD_SECONDS * 1000; slice++) {
      for (const [key, s] of (slice % 2 === 0 ? [['on', on], ['off', off]] : [['off', off], ['on', on]]) as Array<['on' | 'off', Side]>) {
        const [serverBefore, dbBefore] = [cpuOf(s.server.pid) ?? 0, backends ? await backendsCpu(backends) : new Map<number, number>()];
        const started = performance.now();
        await loadSlice(s, started + LOAD_SLICE_MS, loads[key], serial);
        // What follows the writes after commit (search, notifications, deliveries) counts to the slice that caused it.
        await s.server.settle();
        spent[key] += performance.now() - started;
        cpu[key].server += (cpuOf(s.server.pid) ?? 0) - serverBefore;
        // Only one server writes at a time: the database's backends spend this slice's CPU on its writes.
        for (const [pid, now] of backends ? await backendsCpu(backends) : []) cpu[key].db += now - (dbBefore.get(pid) ?? 0);
      }
    }
    await backends?.end();
    const rate = (t: Timings, ms: number) => ((t.ms.length - t.bad) * 100) / (ms / 1000);
    const [onRate, offRate] = [rate(loads.on, spent.on), rate(loads.off, spent.off)];
    // CPU per 1,000 records: on a shared machine what the work costs, where the rate also tells what else ran.
    const costOf = (key: 'on' | 'off') => {
      const thousands = (loads[key].ms.length - loads[key].bad) / 10;
      const db = backends ? `, database ${fmt((cpu[key].db * 1000) / thousands)} ms` : '';
      return `(p50 ${fmt(percentile(loads[key].ms, 50), 1)} ms per bulk; CPU per 1,000 records: server ${fmt((cpu[key].server * 1000) / thousands)} ms${db})`;
    };
    report.rate(`load: ${LOAD_CLIENTS} clients × bulks of 100, all`, onRate, 'records', 0, loads.on, costOf('on'));
    report.rate(`load: ${LOAD_CLIENTS} clients × bulks of 100, taps off`, offRate, 'records', 0, loads.off, costOf('off'));
    const ratio = onRate / offRate;
    report.note(`${'ratio all/off: load'.padEnd(44)} ${fmt(ratio, 2)}× the records per second (target ≥ 0.8×) ${ratio >= 0.8 ? 'PASS' : 'MISS'}`);
    return !report.invalid;
  } finally {
    if (off) await close(off);
    await close(on);
  }
}

console.log(`Tessera write-path benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
let ok = true;
if (!args.has('--pglite')) ok = (await compare('PostgreSQL, 1 process', () => postgresStorage(1), SMALL)) && ok;
if (!args.has('--pg')) ok = (await compare('PGlite, 1 process', pgliteStorage, PGLITE_SMALL)) && ok;
process.exitCode = ok ? 0 : 1;
