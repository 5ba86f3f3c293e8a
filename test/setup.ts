import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'mocha';
import { kernelStarts, stopForgottenKernels, useTestPlugins } from '../core/testing.ts';
import { builtinPlugins } from '../plugins/index.ts';
import { pgActivity } from './fixtures/pg-activity.ts';

const PLUGINS_DIR = fileURLToPath(new URL('../plugins/', import.meta.url));
const ROOT = fileURLToPath(new URL('../', import.meta.url));

// Test kernels load the built-ins unless a test names its plugins; a named plugin's built-in dependencies come from plugins/<id>/index.ts.
useTestPlugins({
  defaults: builtinPlugins,
  baseDir: PLUGINS_DIR,
  locate: (id) => (fs.existsSync(path.join(PLUGINS_DIR, id, 'index.ts')) ? `./${id}/index.ts` : undefined),
});

/**
 * With TESSERA_TEST_TIMING set to a file, each test file's wall time and the kernel starts within it are appended
 * there as `seconds<TAB>kernels<TAB>kernel seconds<TAB>file<TAB>each start in ms, comma-separated`: CI prints the
 * slowest files and the starts' median, so the suite's time has names.
 * In a parallel run a file is timed whole; in a serial one from its first test to the next file's first test, so its
 * `before` hooks count to the file before it.
 */
const timingLog = process.env.TESSERA_TEST_TIMING;
let timed: { file: string; at: number; kernels: number } | undefined;

function closeTimed(): void {
  if (!timed || !timingLog) return;
  const seconds = (performance.now() - timed.at) / 1000;
  const starts = kernelStarts.slice(timed.kernels);
  const kernelSeconds = starts.reduce((sum, ms) => sum + ms, 0) / 1000;
  const line = [seconds.toFixed(1), starts.length, kernelSeconds.toFixed(1), path.relative(ROOT, timed.file), starts.map((ms) => ms.toFixed(0)).join(',')];
  fs.appendFileSync(timingLog, `${line.join('\t')}\n`);
  timed = undefined;
}

/**
 * After each file (in a parallel run; after the whole run otherwise), the kernels its tests left running are stopped
 * and named: one forgotten kernel polls its jobs for the rest of the process and slows every file after it.
 */
export const mochaHooks = {
  beforeAll() {
    // A parallel run's worker starts each file here: its `before` hooks come next.
    if (timingLog) timed = { file: '', at: performance.now(), kernels: kernelStarts.length };
  },
  beforeEach(this: Context) {
    const file = this.currentTest?.file;
    if (!timingLog || !file || timed?.file === file) return;
    if (timed?.file) closeTimed();
    if (timed) timed.file = file;
    else timed = { file, at: performance.now(), kernels: kernelStarts.length };
  },
  /** A test that timed out on PostgreSQL carries what the databases were doing, so a hang met once says where it hung. */
  async afterEach(this: Context) {
    const test = this.currentTest;
    const url = process.env.DATABASE_URL;
    if (!url || test?.state !== 'failed' || !test.err || !/Timeout of \d+ms exceeded/.test(test.err.message)) return;
    let activity: string;
    try {
      activity = await pgActivity(url);
    } catch (err) {
      activity = `(PostgreSQL's activity could not be read: ${(err as Error).message})`;
    }
    // The reporter prints the stack's text before its frames: the message is rewritten there too.
    const frames = (test.err.stack ?? '').split('\n').filter((line) => /^\s+at\s/.test(line));
    test.err.message += `\n${activity}`;
    test.err.stack = [`${test.err.name}: ${test.err.message}`, ...frames].join('\n');
  },
  async afterAll() {
    const forgotten = await stopForgottenKernels();
    closeTimed();
    const lines = forgotten.map((origin) => `A test kernel was left running; it was started at ${origin}\n`).join('');
    if (!lines) return;
    // A parallel run's workers do not pass on what they print: CI names a file to collect this in.
    if (process.env.TESSERA_TEST_LEAKS) fs.appendFileSync(process.env.TESSERA_TEST_LEAKS, lines);
    else process.stderr.write(lines);
  },
};
