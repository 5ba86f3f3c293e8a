import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { builtinPlugins } from '../../plugins/index.ts';
import { importsOf, pluginFolderOf, rel, ROOT, sourceFiles, stripComments, tableOwners, tablesNamed } from '../fixtures/source-scan.ts';
import { storageIndependent } from '../fixtures/suite-runs.ts';

/**
 * Plugins meet only through what they declare. A plugin's `public.ts` is the one file other plugins may import
 * from it (types, hook sets, the helpers of its contract; services come through DI), the kernel imports no
 * plugin, an example plugin imports the kernel only through the package's `tessera/*` exports, and a table is
 * named in SQL only by the plugin whose migrations create it.
 */

/**
 * Migrations that shipped touching another owner's table. They ran on installs that exist, so they stay as they
 * are (a migration is history); a new one must not join them.
 */
const SHIPPED_MIGRATIONS: Record<string, string[]> = {
  'plugins/relations/migrations/20261127400001_linked_kind.ts': ['fields'],
  'plugins/workspaces/migrations/20261122100001_workspaces.ts': ['personal_access_tokens'],
};

const packageJson = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string> };
const exported = Object.keys(packageJson.exports).map((key) => key.replace(/^\./, 'tessera'));

function isExported(specifier: string): boolean {
  return exported.some((key) => (key.endsWith('/*') ? specifier.startsWith(key.slice(0, -1)) && !specifier.slice(key.length - 1).includes('/') : specifier === key));
}

/** Where an import of `file` lands when it crosses into something `file` may not reach; undefined when allowed. */
function crossing(file: string, specifier: string): string | undefined {
  const from = rel(file);
  const fromFolder = pluginFolderOf(file);
  if (specifier.startsWith('tessera/') || specifier === 'tessera') return isExported(specifier) ? undefined : `${specifier} (not a package export)`;
  if (!specifier.startsWith('.')) return undefined;
  const target = path.resolve(path.dirname(file), specifier);
  const to = rel(target);
  const toFolder = pluginFolderOf(target);
  if (from.startsWith('core/')) return to.startsWith('core/') ? undefined : to;
  if (fromFolder?.startsWith('examples/')) return toFolder === fromFolder ? undefined : to;
  if (from === 'plugins/index.ts') return to.startsWith('core/') || /^plugins\/[a-z0-9-]+\/index\.ts$/.test(to) ? undefined : to;
  if (to.startsWith('core/') || toFolder === fromFolder) return undefined;
  if (toFolder?.startsWith('plugins/') && to === `${toFolder}/public.ts`) return undefined;
  return to;
}

describe('plugin seams', () => {
  storageIndependent();
  const files = ['core', 'plugins', 'examples'].flatMap((dir) => sourceFiles(path.join(ROOT, dir)));

  it('imports another plugin only through its public.ts, and the kernel imports no plugin', () => {
    const found: Record<string, string[]> = {};
    for (const file of files) {
      for (const spec of importsOf(fs.readFileSync(file, 'utf8'))) {
        const to = crossing(file, spec);
        if (to) (found[rel(file)] ??= []).push(to);
      }
    }
    assert.deepEqual(sorted(found), {}, offenders('imports crossing a seam', found));
  });

  it('names a table in SQL only from the plugin whose migrations create it, or which declares it in `tables`', () => {
    const owners = tableOwners();
    for (const plugin of builtinPlugins) for (const table of plugin.tables ?? []) owners.set(table, `plugins/${plugin.id}`);
    assert.ok(owners.get('fields') === 'plugins/databases' && owners.get('users') === 'plugins/auth', 'the scan finds the owners of known tables');
    const found: Record<string, string[]> = {};
    for (const file of files) {
      const folder = pluginFolderOf(file);
      if (!folder) continue;
      for (const table of tablesNamed(fs.readFileSync(file, 'utf8'), owners)) {
        if (owners.get(table) !== folder && !SHIPPED_MIGRATIONS[rel(file)]?.includes(table)) (found[rel(file)] ??= []).push(table);
      }
    }
    assert.deepEqual(sorted(found), {}, offenders('tables named outside their plugin', found));
  });

  it('opens transactions one way, through inTransaction (core/db.ts)', () => {
    const direct = files.filter((file) => !/^core\/db[.-]/.test(rel(file)) && /\.transaction\(/.test(stripComments(fs.readFileSync(file, 'utf8')))).map(rel);
    assert.deepEqual(direct, []);
  });

  it('resolves tessera/* the same way in the typecheck as the package exports do', () => {
    const tsconfig = JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: { paths: Record<string, string[]> } };
    for (const [key, target] of Object.entries(packageJson.exports)) {
      if (key === './package.json') continue;
      const specifier = key.replace(/^\./, 'tessera');
      const paths = tsconfig.compilerOptions.paths;
      const match = paths[specifier] ?? Object.entries(paths).find(([p]) => p.endsWith('/*') && specifier.startsWith(p.slice(0, -1)) && p !== 'tessera/*')?.[1] ?? paths['tessera/*'];
      const resolved = match[0].replace('*', specifier.endsWith('/*') ? '*' : path.basename(target, '.ts'));
      assert.equal(path.normalize(resolved), path.normalize(target), `tsconfig paths and package exports disagree on ${specifier}`);
    }
  });

  it('catches a crossing import and a foreign table, so the checks above can fail', () => {
    const file = path.join(ROOT, 'plugins/views/probe.ts');
    assert.equal(crossing(file, '../records/filter-compiler.ts'), 'plugins/records/filter-compiler.ts');
    assert.equal(crossing(file, '../records/public.ts'), undefined);
    assert.equal(crossing(path.join(ROOT, 'core/probe.ts'), '../plugins/records/public.ts'), 'plugins/records/public.ts');
    assert.equal(crossing(path.join(ROOT, 'examples/x/index.ts'), 'tessera/not-exported'), 'tessera/not-exported (not a package export)');
    const owners = tableOwners();
    assert.deepEqual([...tablesNamed("await trx('fields').where({ id }).delete();", owners)], ['fields']);
    assert.deepEqual([...tablesNamed('const q = `SELECT id FROM workspace_members WHERE user_id = $1`;', owners)], ['workspace_members']);
    assert.deepEqual([...tablesNamed("// a comment about fields('x') and FROM users\nconst n = 1;", owners)], []);
  });
});

function sorted(map: Record<string, string[]>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, [...new Set(v)].sort()]));
}

function offenders(what: string, found: Record<string, string[]>): string {
  const lines = Object.entries(sorted(found)).flatMap(([file, items]) => items.map((item) => `  ${file} → ${item}`));
  return `${what}:\n${lines.join('\n')}`;
}
