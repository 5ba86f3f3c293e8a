import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { MatrixRow } from '../../core/testing-matrix.ts';

const PLUGIN_TESTS = fileURLToPath(new URL('../plugins', import.meta.url));

/**
 * Rows a plugin keeps beside its own tests, in `test/plugins/<id>/matrix.rows.ts` (the form
 * `npm run new-plugin` writes), for each plugin in `enabled`: a plugin wired into the
 * built-ins brings its rows along without editing this folder.
 */
export async function pluginRows(enabled: string[]): Promise<MatrixRow[]> {
  const rows: MatrixRow[] = [];
  for (const id of enabled) {
    const file = path.join(PLUGIN_TESTS, id, 'matrix.rows.ts');
    if (!fs.existsSync(file)) continue;
    const mod = (await import(pathToFileURL(file).href)) as { plugin: string; rows: MatrixRow[] };
    if (mod.plugin !== id) throw new Error(`${file} declares plugin "${mod.plugin}"; it belongs to "${id}".`);
    rows.push(...mod.rows);
  }
  return rows;
}
