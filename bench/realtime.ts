/**
 * `npm run bench -- realtime`: the event stream. A server in its own process (all built-in plugins) and a bench
 * database; 100 streams open on it (the editor's token, topic: the database), then sequential record creates: the time
 * from each write's request until each of the 100 streams received its event (p50, p99 over every write × stream),
 * the per-event visibility filter on. Then the streams close, 1,000 open, and the server's RSS growth is printed.
 * Targets: p50 ≤ 50 ms, p99 ≤ 250 ms; 1,000 streams ≤ 200 MB.
 *
 *   --pg | --pglite     only that database (default: both, PostgreSQL first)
 * Environment: DATABASE_URL; BENCH_WRITES (default 200), BENCH_STREAMS (100), BENCH_IDLE_STREAMS (1000).
 */
import http from 'node:http';
import os from 'node:os';
import { fmt } from './lib/format.ts';
import { rssOf } from './lib/proc.ts';
import { startServer } from './lib/server.ts';
import { pgliteStorage, postgresStorage, type Storage } from './lib/storage.ts';
import { percentile } from './records/report.ts';
import { createBenchDatabase, type BenchDatabase } from './records/setup.ts';
import { newRecordValues } from './records/values.ts';

const env = process.env;
const WRITES = Number(env.BENCH_WRITES ?? 200);
const STREAMS = Number(env.BENCH_STREAMS ?? 100);
const IDLE_STREAMS = Number(env.BENCH_IDLE_STREAMS ?? 1000);
const WARMUP = 20;
const args = new Set(process.argv.slice(2));
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

/** An open stream that notes when each record (by its title) arrived. */
interface Listener {
  arrived: Map<string, number>;
  close(): void;
}

function listen(url: string, bench: BenchDatabase, databaseId: string): Promise<Listener> {
  const target = new URL(`${url}/api/v1/workspaces/${bench.workspaceId}/events`);
  target.searchParams.set('topics', `database:${databaseId}`);
  return new Promise((resolve, reject) => {
    const arrived = new Map<string, number>();
    const request = http.get(target, { agent, headers: { ...bench.pat, Accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream: ${res.statusCode}`));
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = block.split('\n').find((line) => line.startsWith('data: '));
          if (!data) continue;
          const title = JSON.parse(data.slice(6)).payload?.record?.values?.title;
          if (typeof title === 'string') arrived.set(title, performance.now());
        }
      });
      resolve({ arrived, close: () => request.destroy() });
    });
    request.on('error', reject);
  });
}

async function create(url: string, bench: BenchDatabase, title: string, i: number): Promise<void> {
  const res = await fetch(`${url}${bench.records}`, { method: 'POST', headers: { ...bench.pat, 'Content-Type': 'application/json' }, body: JSON.stringify({ values: { ...newRecordValues(bench, i), title } }) });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
}

async function until(done: () => boolean, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!done()) {
    if (performance.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 1));
  }
  return true;
}

async function run(name: string, make: () => Storage): Promise<boolean> {
  console.log(`\n${name}`);
  const storage = make();
  const server = await startServer(storage);
  try {
    const bench = await createBenchDatabase(server.url);
    const databaseId = bench.records.split('/databases/')[1].split('/')[0];
    const listeners = await Promise.all(Array.from({ length: STREAMS }, () => listen(server.url, bench, databaseId)));
    const latencies: number[] = [];
    let lost = 0;
    for (let i = 0; i < WARMUP + WRITES; i++) {
      const title = `rt-${i}`;
      const started = performance.now();
      await create(server.url, bench, title, i);
      const all = await until(() => listeners.every((l) => l.arrived.has(title)), 5000);
      if (i < WARMUP) continue;
      if (!all) lost += listeners.filter((l) => !l.arrived.has(title)).length;
      for (const l of listeners) if (l.arrived.has(title)) latencies.push(l.arrived.get(title)! - started);
    }
    for (const l of listeners) l.close();
    const [p50, p99] = [percentile(latencies, 50), percentile(latencies, 99)];
    console.log(`  write → event at ${STREAMS} streams (${WRITES} writes)   p50 ${fmt(p50, 1)} ms  p99 ${fmt(p99, 1)} ms  (targets 50 / 250 ms) ${p50 <= 50 && p99 <= 250 ? 'PASS' : 'MISS'}${lost ? `  ${lost} events never arrived` : ''}`);
    await new Promise((r) => setTimeout(r, 1000));
    const before = rssOf(server.pid) ?? 0;
    const idle = [];
    for (let i = 0; i < IDLE_STREAMS; i += 100) idle.push(...(await Promise.all(Array.from({ length: Math.min(100, IDLE_STREAMS - i) }, () => listen(server.url, bench, databaseId)))));
    await new Promise((r) => setTimeout(r, 2000));
    const growth = ((rssOf(server.pid) ?? 0) - before) / 1024 / 1024;
    console.log(`  ${IDLE_STREAMS} open streams: server RSS +${fmt(growth, 1)} MB (target ≤ 200 MB) ${growth <= 200 ? 'PASS' : 'MISS'}`);
    for (const l of idle) l.close();
    return lost === 0;
  } finally {
    await server.stop();
    await storage.cleanup();
  }
}

console.log(`Tessera realtime benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
let ok = true;
if (!args.has('--pglite')) ok = (await run('PostgreSQL, 1 process', () => postgresStorage(1))) && ok;
if (!args.has('--pg')) ok = (await run('PGlite, 1 process', pgliteStorage)) && ok;
process.exitCode = ok ? 0 : 1;
