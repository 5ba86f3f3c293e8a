import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { useTestPlugins } from '../core/testing.ts';
import { builtinPlugins } from '../plugins/index.ts';

const PLUGINS_DIR = fileURLToPath(new URL('../plugins/', import.meta.url));

// Test kernels load the built-ins unless a test names its plugins; a named plugin's built-in dependencies come from plugins/<id>/index.ts.
useTestPlugins({
  defaults: builtinPlugins,
  baseDir: PLUGINS_DIR,
  locate: (id) => (fs.existsSync(path.join(PLUGINS_DIR, id, 'index.ts')) ? `./${id}/index.ts` : undefined),
});
