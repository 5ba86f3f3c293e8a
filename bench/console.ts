/**
 * `npm run bench -- console`: how soon the web console shows a page of records. A server in its own process (all
 * built-in plugins) with the bench database seeded by SQL (BENCH_CONSOLE_RECORDS, default 10,000 records), and Debian's
 * Chromium headless (playwright-core; CHROMIUM_PATH, default /usr/bin/chromium) signed in as the bench's admin: from
 * the navigation to the database's page until its grid holds 100 rows, BENCH_ITERATIONS times (default 20, after 3
 * warm-up loads). Target: p50 ≤ 500 ms.
 *
 *   --pg | --pglite     only that database (default: both, PostgreSQL first)
 */
import fs from 'node:fs';
import os from 'node:os';
import { chromium } from 'playwright-core';
import { fmt } from './lib/format.ts';
import { pgliteStorage, postgresStorage, type Storage } from './lib/storage.ts';
import { percentile } from './records/report.ts';
import { seededServer } from './records/seeded-server.ts';

const env = process.env;
const RECORDS = Number(env.BENCH_CONSOLE_RECORDS ?? 10_000);
const ITERATIONS = Number(env.BENCH_ITERATIONS ?? 20);
const WARMUP = 3;
const CHROMIUM = env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const TARGET_MS = 500;
const args = new Set(process.argv.slice(2));

async function run(name: string, make: () => Storage): Promise<boolean> {
  console.log(`\n${name} — ${fmt(RECORDS)} records, seeded by SQL`);
  const storage = make();
  const { server, bench } = await seededServer(storage, RECORDS);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await page.goto(`${server.url}/`);
    const token = bench.admin.session.Authorization.replace(/^Bearer /, '');
    await page.evaluate((t) => localStorage.setItem('tessera.console.token', t), token);
    const databaseId = bench.records.split('/databases/')[1].split('/')[0];
    const target = `${server.url}/#/w/${bench.workspaceId}/d/${databaseId}`;
    const ms: number[] = [];
    for (let i = 0; i < WARMUP + ITERATIONS; i++) {
      await page.goto('about:blank');
      const started = performance.now();
      await page.goto(target);
      await page.waitForFunction(() => document.querySelectorAll('[data-record-id]').length >= 100, undefined, { timeout: 10_000 });
      if (i >= WARMUP) ms.push(performance.now() - started);
    }
    const p50 = percentile(ms, 50);
    console.log(`  a page of 100 records after navigation (Chromium headless, 1280×800)  p50 ${fmt(p50, 0)} ms  p99 ${fmt(percentile(ms, 99), 0)} ms  (n=${ms.length}; target ≤ ${TARGET_MS} ms) ${p50 <= TARGET_MS ? 'PASS' : 'MISS'}`);
    return true;
  } finally {
    await browser.close();
    await server.stop();
    await storage.cleanup();
  }
}

console.log(`Tessera console benchmark — node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})`);
if (!fs.existsSync(CHROMIUM)) {
  console.log(`No Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH): nothing measured.`);
  process.exit(1);
}
let ok = true;
if (!args.has('--pglite')) ok = (await run('PostgreSQL, 1 process', () => postgresStorage(1))) && ok;
if (!args.has('--pg')) ok = (await run('PGlite, 1 process', pgliteStorage)) && ok;
process.exitCode = ok ? 0 : 1;
