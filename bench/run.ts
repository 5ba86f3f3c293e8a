/**
 * `npm run bench`: req/s and p50/p99 latency of GET /api/v1/health, GET /api/v1/me with a
 * personal access token and a space read through the permission path (an editor's token), on
 * PostgreSQL and then on PGlite, plus a check that a revoked token
 * is refused on the very next request. See bench/README.md.
 *
 *   --pg | --pglite   only that database (default: both, PostgreSQL first)
 *   --workers N       on PostgreSQL, also measure with N cluster workers (default: the CPU count; 1 = skip)
 *   --cpu-prof        write a V8 CPU profile of each server to a temporary directory (printed)
 * Environment: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test),
 * BENCH_DURATION seconds per measurement (default 10), BENCH_CONNECTIONS (default 32).
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { addMember, call, createToken, signUp, type Headers } from './lib/api.ts';
import { fmt } from './lib/format.ts';
import { startServer } from './lib/server.ts';
import { pgliteStorage, postgresStorage, type Storage } from './lib/storage.ts';

const PAT_TARGET = 5000;
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const WARMUP = 2;
const args = new Set(process.argv.slice(2));
const profileDir = args.has('--cpu-prof') ? fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-prof-')) : null;

let failed = false;

interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  /** Non-2xx answers, errors and timeouts: a run with any is not a result. */
  bad: number;
}

/**
 * wrk (C, one thread) when it is installed: on 2 cores a load generator in Node takes a third
 * of a core from the server it measures. autocannon otherwise (installed with the dev dependencies).
 */
const HAS_WRK = spawnSync('wrk', ['--version']).error === undefined;

async function loadWithAutocannon(url: string, headers: Headers, seconds: number): Promise<Measurement> {
  const r = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, bad: r.non2xx + r.errors + r.timeouts };
}

function wrkMs(output: string, label: string): number {
  const m = new RegExp(`^\\s*${label}\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(output);
  if (!m) return NaN;
  return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
}

async function loadWithWrk(url: string, headers: Headers, seconds: number): Promise<Measurement> {
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]), url];
  const { stdout } = await promisify(execFile)('wrk', args);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 0),
    p50: wrkMs(stdout, '50%'),
    p99: wrkMs(stdout, '99%'),
    bad: non2xx + (socket ? socket.slice(1).reduce((n, x) => n + Number(x), 0) : 0),
  };
}

const load = HAS_WRK ? loadWithWrk : loadWithAutocannon;

async function measure(name: string, url: string, headers: Headers): Promise<Measurement> {
  await load(url, headers, WARMUP);
  const r = await load(url, headers, DURATION);
  const line = `  ${name.padEnd(28)} ${fmt(r.rps).padStart(7)} req/s   p50 ${fmt(r.p50, 1)} ms   p99 ${fmt(r.p99, 1)} ms`;
  if (r.bad > 0) {
    failed = true;
    console.log(`${line}   INVALID: ${r.bad} non-2xx answers, errors or timeouts`);
  } else {
    console.log(line);
  }
  return r;
}

/**
 * A read through the whole permission path: an editor's token reading a space costs the
 * token lookup, the membership, the grants and the space's location.
 */
async function measurePermissionPath(api: string, admin: Headers, ws: string): Promise<void> {
  const space = await call(`${api}/workspaces/${ws}/spaces`, 'POST', admin, { name: 'Bench space' });
  if (space.status !== 201) throw new Error(`permission-path set-up failed: space ${space.status}`);
  const editor = await addMember(api, admin, ws, 'editor');
  const token = await createToken(api, editor, ws, 'read');
  await measure('GET …/spaces/{id} (PAT)', `${api}/workspaces/${ws}/spaces/${space.body.id}`, token.header);
}

async function benchmark(storage: Storage): Promise<void> {
  console.log(`\n${storage.label}`);
  const started = Date.now();
  const server = await startServer(storage, profileDir);
  try {
    console.log(`  server up in ${fmt((Date.now() - started) / 1000, 1)} s; ${CONNECTIONS} connections, ${DURATION} s per measurement after ${WARMUP} s warm-up`);
    const api = `${server.url}/api/v1`;
    const owner = await signUp(api, 'Bench');

    await measure('GET /api/v1/health', `${api}/health`, {});

    const workspace = await call(`${api}/workspaces`, 'POST', owner.session, { name: 'Bench' });
    if (workspace.status === 404) {
      console.log('  GET /api/v1/me (PAT)         skipped: POST /workspaces does not exist (the workspaces plugin is not installed)');
      return;
    }
    const created = await createToken(api, owner, workspace.body.id, 'read');
    const me = await measure('GET /api/v1/me (PAT)', `${api}/me`, created.header);
    if (storage.targeted) {
      const ratio = me.rps / PAT_TARGET;
      console.log(`  target ${fmt(PAT_TARGET)} req/s for GET /me with a PAT: ${fmt(ratio, 2)}× ${ratio >= 1 ? '(met)' : '(NOT met)'}`);
    }
    await measurePermissionPath(api, owner.session, workspace.body.id);

    const revoked = await call(`${api}/me/tokens/${created.id}`, 'DELETE', owner.session);
    const next = await call(`${api}/me`, 'GET', created.header);
    if (revoked.status === 204 && next.status === 401) {
      console.log('  revocation: immediate (DELETE 204, the very next GET /me with the token is 401)');
    } else {
      failed = true;
      console.log(`  revocation: NOT immediate (DELETE ${revoked.status}, next GET /me ${next.status})`);
    }
  } finally {
    await server.stop();
    await storage.cleanup();
  }
}

const workersArg = process.argv.indexOf('--workers');
const WORKERS = workersArg > 0 ? Number(process.argv[workersArg + 1]) : os.cpus().length;
const storages: Array<() => Storage> = [];
if (!args.has('--pglite')) {
  storages.push(() => postgresStorage(1));
  if (WORKERS > 1) storages.push(() => postgresStorage(WORKERS));
}
if (!args.has('--pg')) storages.push(pgliteStorage);
console.log(
  `Tessera benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load from ${HAS_WRK ? 'wrk' : 'autocannon (install wrk for a lighter load generator)'}`,
);
for (const make of storages) await benchmark(make());
if (profileDir) console.log(`\nCPU profiles: ${profileDir} (open in Chrome DevTools or speedscope)`);
process.exitCode = failed ? 1 : 0;
