import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestKernel, type TestKernel } from '../../core/testing.ts';
import system from '../../plugins/system/index.ts';
import auth from '../../plugins/auth/index.ts';
import { signUp } from '../helpers.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLE = path.join(ROOT, 'examples', 'hello-plugin');

/** Runs `npm run new-plugin -- <args>` the way npm would, without npm. */
async function newPlugin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/new-plugin.ts', ...args], { cwd: ROOT });
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
    target = path.join(tmp, 'acme-crm');
    const res = await newPlugin('acme-crm', '--dir', target);
    assert.equal(res.code, 0, res.stderr);
  });
  after(async () => {
    await t?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('copies the example as a package renamed to the new id', () => {
    const files = filesUnder(target).sort();
    const migration = files.find((f) => f.startsWith('migrations'))!;
    assert.match(migration, /^migrations[/\\]\d{14}_acme_crm_greetings\.ts$/);
    assert.deepEqual(files.filter((f) => f !== migration), ['README.md', 'greetings.service.ts', 'hooks.ts', 'index.ts', 'package.json', 'routes.ts', 'schemas.ts']);
    const pkg = JSON.parse(fs.readFileSync(path.join(target, 'package.json'), 'utf8'));
    assert.equal(pkg.name, 'tessera-plugin-acme-crm');
    assert.equal(pkg.type, 'module');
    assert.equal(pkg.main, 'index.ts');
    for (const file of files.filter((f) => f.endsWith('.ts'))) {
      const text = fs.readFileSync(path.join(target, file), 'utf8');
      // Only the default greeting and the pointer to the guide may still say hello.
      const leftovers = text.split('\n').filter((line) => /hello/i.test(line) && !line.includes("default: 'Hello'") && !line.includes('examples/hello-plugin/README.md'));
      assert.deepEqual(leftovers, [], file);
    }
    const index = fs.readFileSync(path.join(target, 'index.ts'), 'utf8');
    assert.match(index, /id: 'acme-crm'/);
    assert.match(index, /AcmeCrmOptions/);
  });

  it('scaffolds a plugin that loads through resolve next to the example, and answers on its own route and table', async () => {
    t = await startTestKernel({
      plugins: [system, auth],
      config: { plugins: { 'acme-crm': { resolve: target }, hello: { resolve: EXAMPLE, options: { greeting: 'Hi' } } } },
    });
    const u = await signUp(t);
    const created = await t.request.post('/api/v1/acme-crm/greetings').set(u.auth).send({ name: 'Ada' }).expect(201);
    assert.equal(created.body.message, 'Hello, Ada!');
    assert.equal(created.headers['x-acme-crm'], 'Hello');
    assert.equal(created.headers['x-hello'], 'Hi');
    const list = await t.request.get('/api/v1/acme-crm/greetings').set(u.auth).expect(200);
    assert.deepEqual(list.body.data.map((g: { id: string }) => g.id), [created.body.id]);
    assert.equal((await t.db('acme_crm_greetings').where({ id: created.body.id })).length, 1);
    assert.equal((await t.db('hello_greetings')).length, 0);
    assert.equal((await t.db('knex_migrations_acme_crm')).length, 1);
    const statuses = t.kernel.pluginStatuses().filter((s) => s.id === 'acme-crm' || s.id === 'hello');
    assert.deepEqual(statuses.map((s) => [s.id, s.state]), [['acme-crm', 'active'], ['hello', 'active']]);
  });

  it('refuses an id that is not kebab-case, writing nothing', async () => {
    const ids = ['AcmeCrm', 'acme_crm', '9lives', 'acme--crm'];
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
