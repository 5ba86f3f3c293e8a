/**
 * `npm run bench -- import`: issue 18's CSV import on PostgreSQL. A 100,000-row, 8-column CSV (title, a select label,
 * a number, a currency, a date, a checkbox, an email, a long text) imported through the API into the database of the
 * records benchmark: it runs as a job, timed from the POST to the job's `succeeded` (target ≥ 20,000 rows/s). Then
 * where the time goes: the upload and row count (the POST's answer), a dry run of the same file (read, convert and
 * check every cell, no write), the floor of the machine (as many rows inserted into the same table by one SQL
 * statement; the import's target is ≤ 1.5× it), and the import on a second server with the history plugins (activity, record-versions) off. Under
 * each import, the CPU seconds of the server and of the PostgreSQL backends writing the table.
 * Environment: DATABASE_URL; BENCH_IMPORT_ROWS (default 100000); BENCH_IMPORT_OFF, the plugins off in the last line
 * (default activity,record-versions); BENCH_PROF, a directory where the first server (history on) writes a V8 CPU
 * profile when it stops.
 */
import os from 'node:os';
import { fmt } from './lib/format.ts';
import { cpuOf, withBackendsCpu } from './lib/proc.ts';
import { startServer, type Server } from './lib/server.ts';
import { PG_URL, postgresStorage } from './lib/storage.ts';
import type { Headers } from './lib/api.ts';
import { createBenchDatabase, STATUS_LABELS, type BenchDatabase } from './records/setup.ts';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
/** The plugins the last line turns off. */
const OFF = process.env.BENCH_IMPORT_OFF ?? 'activity,record-versions';
const TARGET = 20_000;
const MAPPING = { Title: 'title', Status: 'status', Priority: 'priority', Amount: 'amount', Due: 'due', Done: 'done', Email: 'email', Notes: 'notes' };

/** The file, built once: every column has values of its own kind, some cells empty. */
function csvFile(rows: number): Buffer {
  const lines = ['Title,Status,Priority,Amount,Due,Done,Email,Notes'];
  for (let i = 0; i < rows; i++) {
    const day = `2025-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')}`;
    const notes = i % 10 === 0 ? '' : `"Imported row ${i}, with a comma and ""quotes"""`;
    lines.push(`Task ${i},${STATUS_LABELS[i % STATUS_LABELS.length]},${i % 1000},${(i % 100_000) / 100},${day},${i % 2 === 0 ? 'yes' : 'no'},user${i}@example.test,${notes}`);
  }
  return Buffer.from(lines.join('\n'), 'utf8');
}

async function send(server: string, bench: BenchDatabase, pat: Headers, file: Buffer, dryRun: boolean): Promise<{ status: number; body: any; ms: number }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file)], { type: 'text/csv' }), 'bench.csv');
  form.append('mapping', JSON.stringify(MAPPING));
  form.append('dry_run', String(dryRun));
  const started = performance.now();
  const res = await fetch(`${server}${bench.records.replace(/\/records$/, '/import')}`, { method: 'POST', headers: pat, body: form });
  const body = await res.json();
  return { status: res.status, body, ms: performance.now() - started };
}

/**
 * POST, then the job's status until it ends: milliseconds to the answer and to `succeeded`, and the CPU seconds the
 * server and the PostgreSQL backends writing the table spent meanwhile (the machine is shared: its wall times vary
 * with the other load, its CPU seconds much less).
 */
async function importOnce(server: Server, file: Buffer): Promise<{ answered: number; total: number; cpu: number | null; dbCpu: number | null; bench: BenchDatabase }> {
  const bench = await createBenchDatabase(server.url);
  const cpuBefore = cpuOf(server.pid);
  const { result, dbCpu } = await withBackendsCpu(PG_URL, bench.table, async () => {
    const started = performance.now();
    const posted = await send(server.url, bench, bench.pat, file, false);
    if (posted.status !== 202) throw new Error(`import answered ${posted.status}: ${JSON.stringify(posted.body).slice(0, 300)}`);
    const statusUrl = `${server.url}${bench.records.replace(/\/records$/, `/imports/${posted.body.import_id}`)}`;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const status = await (await fetch(statusUrl, { headers: bench.pat })).json();
      if (status.status === 'failed') throw new Error(`import failed: ${JSON.stringify(status.errors).slice(0, 300)}`);
      if (status.status === 'succeeded') {
        if (status.created !== ROWS) throw new Error(`import created ${status.created} of ${ROWS}`);
        return { answered: posted.ms, total: performance.now() - started };
      }
    }
  });
  const cpuAfter = cpuOf(server.pid);
  return { ...result, cpu: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore, dbCpu, bench };
}

/** Where the CPU went: the server's and the PostgreSQL backends' seconds, as rows per CPU-second of both. */
function cpuLine(run: { cpu: number | null; dbCpu: number | null }): string {
  if (run.cpu === null) return '';
  const db = run.dbCpu === null ? '' : `, PostgreSQL ${fmt(run.dbCpu, 1)} s (${fmt(ROWS / (run.cpu + run.dbCpu))} rows per CPU-second of both)`;
  return `      CPU: server ${fmt(run.cpu, 1)} s${db}`;
}

console.log(`Tessera import benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
const storage = postgresStorage(1);
console.log(`\n${storage.label} — ${fmt(ROWS)} rows × 8 columns`);
const file = csvFile(ROWS);
console.log(`  file: ${fmt(file.length / 1024 / 1024, 1)} MiB`);
const line = (label: string, ms: number, extra = '') => console.log(`  ${label.padEnd(56)} ${fmt(ms / 1000, 2).padStart(7)} s  ${fmt(ROWS / (ms / 1000)).padStart(8)} rows/s${extra}`);
let status = 0;
let table: BenchDatabase | undefined;
/** The import's time with history on, compared with the floor of the same run: the machine is shared, its speed varies. */
let imported = 0;
const server = await startServer(storage, process.env.BENCH_PROF ?? null);
try {
  const dry = await createBenchDatabase(server.url);
  const checked = await send(server.url, dry, dry.pat, file, true);
  if (checked.status !== 200 || checked.body.valid !== ROWS) throw new Error(`dry run answered ${checked.status}: ${JSON.stringify(checked.body).slice(0, 300)}`);
  line('dry run (read, convert, check; no write)', checked.ms);
  const on = await importOnce(server, file);
  table = on.bench;
  line('upload + count (the POST, 202)', on.answered);
  imported = on.total;
  const pass = ROWS / (on.total / 1000) >= TARGET;
  line('import, POST to succeeded (history on)', on.total, `  (target ≥ ${fmt(TARGET)}) ${pass ? 'PASS' : 'MISS'}`);
  console.log(cpuLine(on));
  if (!pass) status = 1;
} finally {
  await server.stop();
}
// The machine's floor: as many rows written into the same table by one SQL statement (no parsing, no checks, no
// history, no events), rolled back. What the import costs beyond it is the import's own.
const db = await storage.open();
try {
  const c = table!.columns;
  const started = performance.now();
  await db.knex.raw('BEGIN');
  await db.knex.raw(
    `INSERT INTO "${table!.table}" (position, "${c.title}", "${c.priority}", "${c.amount}", "${c.due}", "${c.done}", "${c.email}", "${c.notes}")
     SELECT 'z' || lpad(g::text, 8, '0'), 'Task ' || g, g % 1000, (g % 100000) / 100.0, date '2025-01-01' + g % 300, g % 2 = 0, 'user' || g || '@example.test', 'Imported row ' || g
       FROM generate_series(1, ?) g`,
    [ROWS],
  );
  const floor = performance.now() - started;
  line('floor: one INSERT … SELECT in SQL, same table', floor);
  const ratio = imported / floor;
  console.log(`  import (history on) / floor: ${fmt(ratio, 1)}× (target ≤ 1.5×) ${ratio <= 1.5 ? 'PASS' : 'MISS'}`);
  await db.knex.raw('ROLLBACK');
} finally {
  await db.close();
}
const without = await startServer(storage, null, 'server.ts', { BENCH_PLUGINS_OFF: OFF });
try {
  const off = await importOnce(without, file);
  line(`import, POST to succeeded (${OFF} off)`, off.total);
  console.log(cpuLine(off));
} finally {
  await without.stop();
  await storage.cleanup();
}
process.exit(status);
