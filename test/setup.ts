import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopForgottenKernels, useTestPlugins } from '../core/testing.ts';
import { builtinPlugins } from '../plugins/index.ts';

const PLUGINS_DIR = fileURLToPath(new URL('../plugins/', import.meta.url));

// Test kernels load the built-ins unless a test names its plugins; a named plugin's built-in dependencies come from plugins/<id>/index.ts.
useTestPlugins({
  defaults: builtinPlugins,
  baseDir: PLUGINS_DIR,
  locate: (id) => (fs.existsSync(path.join(PLUGINS_DIR, id, 'index.ts')) ? `./${id}/index.ts` : undefined),
});

/**
 * After each file (in a parallel run; after the whole run otherwise), the kernels its tests left running are stopped
 * and named: one forgotten kernel polls its jobs for the rest of the process and slows every file after it.
 */
export const mochaHooks = {
  async afterAll() {
    const forgotten = await stopForgottenKernels();
    const lines = forgotten.map((origin) => `A test kernel was left running; it was started at ${origin}\n`).join('');
    if (!lines) return;
    // A parallel run's workers do not pass on what they print: CI names a file to collect this in.
    if (process.env.TESSERA_TEST_LEAKS) fs.appendFileSync(process.env.TESSERA_TEST_LEAKS, lines);
    else process.stderr.write(lines);
  },
};
