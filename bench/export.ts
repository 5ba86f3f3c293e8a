/**
 * `npm run bench -- export`: issue 18's CSV export figures on PostgreSQL — `GET …/databases/{db}/export.csv` of
 * 1,000,000 records of the records benchmark's ten fields (seeded by SQL), read to the end by one client: rows per
 * second (target ≥ 100,000) and how much the server process's resident memory grows meanwhile (target < 100 MB),
 * sampled from /proc every 50 ms (with its peaks in the first fifth of the download and in its last half), and the
 * server's CPU seconds meanwhile (rows per CPU-second: the figure other load on the machine does not change), and the
 * CPU seconds of the PostgreSQL backends seen reading the table (local PostgreSQL only: PostgreSQL writes most cells). Then the
 * same through a view (a filter and a sort) and with gzip, without targets.
 * Environment: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); BENCH_EXPORT_RECORDS (1000000);
 * BENCH_PROF, a directory where the server writes a V8 CPU profile when it stops.
 */
import http from 'node:http';
import os from 'node:os';
import { fmt } from './lib/format.ts';
import { expect } from './lib/api.ts';
import { cpuOf, rssOf, withBackendsCpu } from './lib/proc.ts';
import { startServer, type Server } from './lib/server.ts';
import { PG_URL, postgresStorage } from './lib/storage.ts';
import { Report, type Timings } from './records/report.ts';
import { seedRecords } from './records/seed.ts';
import { createBenchDatabase, STATUS_LABELS } from './records/setup.ts';

const COUNT = Number(process.env.BENCH_EXPORT_RECORDS ?? 1_000_000);
const MB = 1024 * 1024;

interface Download {
  seconds: number;
  /** CPU seconds the server spent meanwhile: what the export costs it whatever else loads the machine. */
  cpu: number | null;
  /** CPU seconds, meanwhile, of the PostgreSQL backends seen reading the table (sampled every 100 ms; others share the server). */
  dbCpu: number | null;
  bytes: number;
  lines: number;
  status: number;
  rssBefore: number | null;
  rssPeak: number | null;
  /** The highest RSS in the first fifth of the download and in its last half: equal when memory does not grow with the rows sent. */
  rssEarly: number | null;
  rssLate: number | null;
}

/** Reads the whole answer as fast as it comes, counting bytes and line ends, with the server's RSS sampled meanwhile. */
async function download(server: Server, path: string, headers: Record<string, string>, table = ''): Promise<Download> {
  const { result, dbCpu } = await withBackendsCpu(PG_URL, table, () => transfer(server, path, headers));
  return { ...result, dbCpu };
}

function transfer(server: Server, path: string, headers: Record<string, string>): Promise<Omit<Download, 'dbCpu'>> {
  const rssBefore = rssOf(server.pid);
  const cpuBefore = cpuOf(server.pid);
  const samples: Array<{ at: number; rss: number }> = [];
  const sampler = setInterval(() => {
    const rss = rssOf(server.pid);
    if (rss !== null) samples.push({ at: performance.now(), rss });
  }, 50);
  const started = performance.now();
  const peak = (from: number, to: number) => {
    const within = samples.filter((x) => x.at >= from && x.at <= to).map((x) => x.rss);
    return within.length > 0 ? Math.max(...within) : null;
  };
  return new Promise((resolve, reject) => {
    const req = http.get(`${server.url}${path}`, { headers, agent: false }, (res) => {
      let bytes = 0;
      let lines = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      });
      res.on('end', () => {
        clearInterval(sampler);
        const cpuAfter = cpuOf(server.pid);
        const cpu = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore;
        const ended = performance.now();
        const span = ended - started;
        resolve({
          seconds: span / 1000,
          cpu,
          bytes,
          lines,
          status: res.statusCode ?? 0,
          rssBefore,
          rssPeak: peak(started, ended),
          rssEarly: peak(started, started + span / 5),
          rssLate: peak(started + span / 2, ended),
        });
      });
      res.on('error', reject);
    });
    req.on('error', (err) => {
      clearInterval(sampler);
      reject(err);
    });
  });
}

function print(report: Report, name: string, d: Download, rows: number, targeted: boolean): void {
  const bad = d.status === 200 ? 0 : 1;
  const timings: Timings = { ms: [d.seconds * 1000], bad, ...(bad ? { firstBad: `status ${d.status}` } : {}) };
  const db = d.dbCpu ? `; PostgreSQL CPU ${fmt(d.dbCpu, 1)} s` : '';
  const cpu = d.cpu ? `; server CPU ${fmt(d.cpu, 1)} s = ${fmt(rows / d.cpu)} rows per CPU-second${db}` : '';
  const detail = `${fmt(rows)} rows, ${fmt(d.bytes / MB, 1)} MB in ${fmt(d.seconds, 2)} s${cpu}`;
  if (targeted) report.rate(name, rows / d.seconds, 'rows', 100_000, timings, detail);
  else report.unavailable(name, `${fmt(rows / d.seconds).padStart(7)} rows/s  ${detail}`);
  if (d.rssBefore === null || d.rssPeak === null) return report.unavailable(`  server RSS`, 'not measurable here (no /proc)');
  const growth = (d.rssPeak - d.rssBefore) / MB;
  const phases = d.rssEarly !== null && d.rssLate !== null ? ` (peak in the first fifth ${fmt(d.rssEarly / MB)} MB, in the last half ${fmt(d.rssLate / MB)} MB)` : '';
  const line = `  server RSS ${fmt(d.rssBefore / MB)} MB → peak ${fmt(d.rssPeak / MB)} MB: +${fmt(growth, 1)} MB${phases}`;
  report.note(targeted ? `${line}   target < 100 MB: ${growth < 100 ? 'PASS' : 'MISS'}` : line);
}

console.log(`Tessera export benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
const storage = postgresStorage(1);
console.log(`\n${storage.label} — ${fmt(COUNT)} records, CSV export`);
const report = new Report(true);
const server = await startServer(storage, process.env.BENCH_PROF ?? null);
try {
  const bench = await createBenchDatabase(server.url);
  const db = await storage.open();
  try {
    const seeded = await seedRecords(db, bench, COUNT, () => {});
    report.note(`seeded by SQL in ${fmt(seeded.seconds, 1)} s, then VACUUM ANALYZE; one client reading as fast as it can, the editor's PAT`);
  } finally {
    await db.close();
  }
  const csv = bench.records.replace(/\/records$/, '/export.csv');
  const auth = bench.pat;
  // A first, small export warms the process (JIT, caches, prepared statements) without counting.
  await download(server, `${csv}?fields=title`, auth);
  const whole = await download(server, csv, auth, bench.table);
  print(report, `export.csv, all ${fmt(COUNT)} records, 10 fields`, whole, whole.lines - 1, true);
  if (whole.lines - 1 !== COUNT) {
    report.invalid = true;
    report.note(`  INVALID: ${fmt(whole.lines - 1)} rows exported, ${fmt(COUNT)} expected`);
  }

  const view = await expect(201, 'view', `${server.url}${bench.records.replace(/\/records$/, '/views')}`, 'POST', bench.admin.session, {
    name: 'Todo by amount',
    type: 'grid',
    filter: { field: 'status', op: 'eq', value: STATUS_LABELS[1] },
    sorts: [{ field: 'amount', direction: 'desc' }],
  });
  const viewed = await download(server, `${csv}?view_id=${view.id}`, auth, bench.table);
  print(report, 'export.csv through a view (filter, sort)', viewed, viewed.lines - 1, false);
  const gzipped = await download(server, csv, { ...auth, 'Accept-Encoding': 'gzip' }, bench.table);
  print(report, 'export.csv, all records, gzip', gzipped, COUNT, false);
} finally {
  await server.stop();
  await storage.cleanup();
}
process.exitCode = report.invalid ? 1 : 0;
