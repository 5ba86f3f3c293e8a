import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import knex from 'knex';
import { loadConfig } from '../../core/config.ts';
import { Kernel } from '../../core/kernel.ts';
import { StartupError } from '../../core/errors.ts';
import { builtinPlugins } from '../../plugins/index.ts';
import { embeddedRunOnly } from '../fixtures/suite-runs.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real start script (as `npm start` does) and waits for it to exit, at most `ms`. */
function start(env: NodeJS.ProcessEnv, ms: number): Promise<Exit> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { cwd: ROOT, env: { ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** An environment without the suite's database: the embedded one in `dataDir`. */
function embedded(dataDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, HOST: '127.0.0.1', ...extra };
  if (!('DATABASE_URL' in extra)) delete env.DATABASE_URL;
  return env;
}

/** A path under a regular file: no user, root included, can make a directory there. */
function unwritableDir(): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-not-a-dir-')), 'file');
  fs.writeFileSync(file, '');
  return path.join(file, 'data');
}

const oneLine = (text: string) => text.trim().split('\n');

describe('start-up errors: one line saying what is wrong and how to fix it, before anything else', function () {
  this.timeout(60_000);
  let dataDir: string;
  beforeEach(() => (dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-start-'))));
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('a port in use: named, with PORT to change, before any migration', async function () {
    embeddedRunOnly(this);
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as net.AddressInfo;
    try {
      const started = Date.now();
      const exit = await start(embedded(dataDir, { PORT: String(port) }), 45_000);
      assert.equal(exit.code, 1, exit.stderr);
      assert.deepEqual(oneLine(exit.stderr), [`tessera: Port ${port} on 127.0.0.1 is already in use (another Tessera, or another server): stop it, or set PORT to a free port.`]);
      assert.doesNotMatch(exit.stdout, /migrations applied/);
      assert.deepEqual(fs.readdirSync(dataDir), [], 'nothing was created: no database, no migration');
      // The script's own loading (tsx, every plugin) is most of it; the migrations took 13 s before.
      assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
    } finally {
      holder.close();
    }
  });

  it('DATABASE_URL that is not a URL: says what one looks like, without repeating it', async function () {
    embeddedRunOnly(this);
    const exit = await start(embedded(dataDir, { PORT: '0', DATABASE_URL: 'not-a-url' }), 45_000);
    assert.equal(exit.code, 1, exit.stderr);
    assert.deepEqual(oneLine(exit.stderr), [
      'tessera: Invalid configuration at "/databaseUrl" (DATABASE_URL): it is not a URL; write it as postgres://user:password@host:5432/database, or unset it to use the embedded database in DATA_DIR.',
    ]);
  });

  it('DATA_DIR that cannot be written: refused before the database opens or any upload fails, on either database', async () => {
    const bad = unwritableDir();
    const config = loadConfig({ env: {}, input: { port: 0, dataDir: bad, databaseUrl: process.env.DATABASE_URL, logLevel: 'silent' } });
    // On PostgreSQL, a schema of its own: were the check to let the start through, the migrations would land there.
    const schema = process.env.DATABASE_URL ? `t_${randomBytes(6).toString('hex')}` : undefined;
    const started = Kernel.start({ config, plugins: builtinPlugins, schema });
    try {
      await assert.rejects(started, (err: unknown) => {
        assert.ok(err instanceof StartupError, String(err));
        assert.equal(err.code, 'data_dir_unwritable');
        const where = process.env.DATABASE_URL ? 'uploads are stored' : 'the embedded database lives';
        assert.equal(err.message.replace(/\(ENOTDIR at [^)]+\)/, '(ENOTDIR at …)'), `DATA_DIR "${bad}" cannot be written (ENOTDIR at …), and ${where} there: give the user running Tessera write access to it, or set DATA_DIR to a directory it can write.`);
        return true;
      });
    } finally {
      await started.then((k) => k.stop(), () => {});
      if (schema) {
        const pg = knex({ client: 'pg', connection: process.env.DATABASE_URL });
        await pg.raw('DROP SCHEMA IF EXISTS ?? CASCADE', [schema]).finally(() => pg.destroy());
      }
    }
  });
});
