import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createWorkspace, signUp, startTestKernel, type TestKernel } from '../../core/testing.ts';
import system from '../../plugins/system/index.ts';
import auth from '../../plugins/auth/index.ts';
import workspaces from '../../plugins/workspaces/index.ts';
import { embeddedRunOnly } from '../fixtures/suite-runs.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLE = path.join(ROOT, 'examples', 'hello-plugin');

/** Runs `npm run new-plugin -- <args>` the way npm would, without npm, in the checkout at `root`. */
async function newPlugin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return newPluginIn(ROOT, ...args);
}

async function newPluginIn(root: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/new-plugin.ts', ...args], { cwd: root });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

describe('npm run new-plugin', () => {
  let tmp: string;
  let target: string;
  let t: TestKernel | undefined;

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-new-plugin-'));
    target = path.join(tmp, 'scaffold-probe');
    const res = await newPlugin('scaffold-probe', '--dir', target);
    assert.equal(res.code, 0, res.stderr);
  });
  after(async () => {
    await t?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('copies the example as a package renamed to the new id', () => {
    const files = filesUnder(target).sort();
    const migration = files.find((f) => f.startsWith('migrations'))!;
    assert.match(migration, /^migrations[/\\]\d{14}_scaffold_probe_greetings\.ts$/);
    assert.deepEqual(
      files.filter((f) => f !== migration),
      ['README.md', 'errors.ts', 'greetings.routes.ts', 'greetings.service.ts', 'hooks.ts', 'index.ts', 'pack.ts', 'package.json', 'public.ts', 'schemas.ts', path.join('test', 'matrix.rows.ts'), path.join('test', 'scaffold-probe.test.ts')],
    );
    const pkg = JSON.parse(fs.readFileSync(path.join(target, 'package.json'), 'utf8'));
    assert.equal(pkg.name, 'tessera-plugin-scaffold-probe');
    assert.equal(pkg.type, 'module');
    assert.equal(pkg.main, 'index.ts');
    for (const file of files.filter((f) => f.endsWith('.ts'))) {
      const text = fs.readFileSync(path.join(target, file), 'utf8');
      // Only the default greeting (and what it reads as) and the pointer to the guide may still say hello.
      const leftovers = text.split('\n').filter((line) => /hello/i.test(line) && !line.includes("default: 'Hello'") && !line.includes("'Hello, Ada!'") && !line.includes('examples/hello-plugin/README.md'));
      assert.deepEqual(leftovers, [], file);
    }
    const index = fs.readFileSync(path.join(target, 'index.ts'), 'utf8');
    assert.match(index, /id: 'scaffold-probe'/);
    assert.match(index, /ScaffoldProbeOptions/);
  });

  it('scaffolds a plugin that loads through resolve next to the example, and answers on its own route and table', async () => {
    t = await startTestKernel({
      plugins: [system, auth, workspaces],
      config: { plugins: { 'scaffold-probe': { resolve: target }, hello: { resolve: EXAMPLE, options: { greeting: 'Hi' } } } },
    });
    const u = await signUp(t);
    const { id: ws } = await createWorkspace(t, u);
    const created = await t.request.post(`/api/v1/workspaces/${ws}/scaffold-probe/greetings`).set(u.auth).send({ name: 'Ada' }).expect(201);
    assert.equal(created.body.message, 'Hello, Ada!');
    assert.equal(created.headers['x-scaffold-probe'], 'Hello');
    assert.equal(created.headers['x-hello'], 'Hi');
    const list = await t.request.get(`/api/v1/workspaces/${ws}/scaffold-probe/greetings`).set(u.auth).expect(200);
    assert.deepEqual(list.body.data.map((g: { id: string }) => g.id), [created.body.id]);
    assert.equal((await t.db('scaffold_probe_greetings').where({ id: created.body.id })).length, 1);
    assert.equal((await t.db('hello_greetings')).length, 0);
    assert.equal((await t.db('knex_migrations_scaffold_probe')).length, 1);
    const statuses = t.kernel.pluginStatuses().filter((s) => s.id === 'scaffold-probe' || s.id === 'hello');
    assert.deepEqual(statuses.map((s) => [s.id, s.state]).sort(), [['hello', 'active'], ['scaffold-probe', 'active']]);
  });

  it('writes a built-in whose own test and matrix rows keep the typecheck, its test and the authorization matrix green once wired in', async function () {
    this.timeout(300_000);
    // What is checked is the scaffold's code, the same on either database: one run of the suite is enough.
    embeddedRunOnly(this);
    // A copy of the checkout: the scaffold writes into the tree it runs from.
    const copy = path.join(tmp, 'checkout');
    for (const dir of ['core', 'plugins', 'scripts', 'examples', 'test', 'migrations', 'bench']) fs.cpSync(path.join(ROOT, dir), path.join(copy, dir), { recursive: true });
    for (const file of ['package.json', 'tsconfig.json', '.mocharc.json']) fs.copyFileSync(path.join(ROOT, file), path.join(copy, file));
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));

    const res = await newPluginIn(copy, 'scaffold-probe');
    assert.equal(res.code, 0, res.stderr);
    for (const file of ['plugins/scaffold-probe/index.ts', 'plugins/scaffold-probe/README.md', 'test/plugins/scaffold-probe/scaffold-probe.test.ts', 'test/plugins/scaffold-probe/matrix.rows.ts']) {
      assert.ok(fs.existsSync(path.join(copy, file)), file);
    }
    assert.match(res.stdout, /Next:\n {2}1\. Make it a built-in: in plugins\/index\.ts, import scaffoldProbe from '\.\/scaffold-probe\/index\.ts'/);
    assert.match(res.stdout, /test\/plugins\/scaffold-probe\/matrix\.rows\.ts/);

    const index = path.join(copy, 'plugins', 'index.ts');
    const wired = fs
      .readFileSync(index, 'utf8')
      .replace(/^(import system from .*)$/m, `$1\nimport scaffoldProbe from './scaffold-probe/index.ts';`)
      .replace(/builtinPlugins: Plugin\[\] = \[([^\]]*)\]/, 'builtinPlugins: Plugin[] = [$1, scaffoldProbe]');
    assert.notEqual(wired, fs.readFileSync(index, 'utf8'));
    fs.writeFileSync(index, wired);

    const run = (file: string, args: string[]) => promisify(execFile)(process.execPath, [path.join(ROOT, 'node_modules', file), ...args], { cwd: copy, maxBuffer: 1 << 24 });
    // The built-ins with the scaffold wired in, and its own test: the tests, benches and scripts of the tree are the
    // suite's own typecheck's, which checks the same files.
    const scaffoldOnly = { extends: './tsconfig.json', files: ['plugins/index.ts'], include: ['plugins/scaffold-probe', 'test/plugins/scaffold-probe'] };
    fs.writeFileSync(path.join(copy, 'tsconfig.scaffold.json'), JSON.stringify(scaffoldOnly));
    await run('typescript/bin/tsc', ['--noEmit', '-p', 'tsconfig.scaffold.json']);
    const mocha = await run('mocha/bin/mocha.js', ['test/plugins/scaffold-probe/scaffold-probe.test.ts', 'test/authorization/matrix.test.ts', '--grep', 'scaffold-probe|exactly one row', '--no-color']);
    assert.match(mocha.stdout, /✔ has exactly one row per route of the enabled plugins/);
    assert.match(mocha.stdout, /✔ POST \/workspaces\/\{ws\}\/scaffold-probe\/greetings/);
    assert.match(mocha.stdout, / 12 passing/);
  });

  it('refuses an id that is not kebab-case, writing nothing', async () => {
    const ids = ['ScaffoldProbe', 'scaffold_probe', '9lives', 'acme--crm'];
    const results = await Promise.all(ids.map((id) => newPlugin(id, '--dir', path.join(tmp, 'bad'))));
    results.forEach((res, i) => {
      assert.equal(res.code, 1, ids[i]);
      assert.match(res.stderr, /kebab-case/);
    });
    assert.ok(!fs.existsSync(path.join(tmp, 'bad')));
  });

  it('refuses an existing folder and the id of a built-in plugin, leaving them untouched', async () => {
    const before = fs.readFileSync(path.join(target, 'index.ts'), 'utf8');
    const again = await newPlugin('other', '--dir', target);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already exists/);
    assert.equal(fs.readFileSync(path.join(target, 'index.ts'), 'utf8'), before);
    const builtin = await newPlugin('system');
    assert.equal(builtin.code, 1);
    assert.match(builtin.stderr, /plugins\/system already exists/);
  });
});
