import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import path from 'node:path';
import os from 'node:os';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { embeddedRunOnly } from '../fixtures/suite-runs.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PG_URL = process.env.DATABASE_URL;

async function freePort(): Promise<number> {
  const srv = net.createServer().listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address() as net.AddressInfo;
  srv.close();
  return port;
}

/** `npm start`'s entry point in a child process, with its own environment. */
function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/start.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, LOG_LEVEL: 'info', DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-cluster-')), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  child.stderr.on('data', (c: Buffer) => (out += c));
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
  return { child, exited, output: () => out };
}

describe('serving with several worker processes (WORKERS)', function () {
  this.timeout(120_000);

  it('refuses WORKERS > 1 on the embedded database, naming the key', async function () {
    // The server it starts is given no DATABASE_URL: the PostgreSQL run would check the same thing again.
    embeddedRunOnly(this);
    const run = start({ WORKERS: '2', PORT: String(await freePort()) });
    const [code] = await run.exited;
    assert.equal(code, 1);
    assert.match(run.output(), /"\/workers".*PostgreSQL/);
  });

  (PG_URL ? it : it.skip)('serves from 2 workers sharing one port and one database, and stops on SIGTERM', async () => {
    const dbName = `tessera_cluster_${process.pid}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName}`);
    await admin.query(`CREATE DATABASE ${dbName}`);
    const url = new URL(PG_URL!);
    url.pathname = `/${dbName}`;
    const port = await freePort();
    const run = start({ WORKERS: '2', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: url.toString() });
    try {
      const base = `http://127.0.0.1:${port}/api/v1`;
      for (let i = 0; i < 300 && !run.output().includes('Tessera listening'); i++) await new Promise((r) => setTimeout(r, 200));
      assert.match(run.output(), /"workers":2/);

      const signUp = await fetch(`${base}/auth/sign-up`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'cluster@example.test', name: 'C', password: 'cluster password' }),
      });
      assert.equal(signUp.status, 201);
      const { token } = (await signUp.json()) as { token: string };
      // Fresh connections are spread over the workers; each must see the session another one wrote.
      for (let i = 0; i < 20; i++) {
        const res = await fetch(`${base}/me`, { headers: { Authorization: `Bearer ${token}`, Connection: 'close' } });
        assert.equal(res.status, 200);
      }
      await fetch(`${base}/auth/sign-out`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, Connection: 'close' } });
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${base}/me`, { headers: { Authorization: `Bearer ${token}`, Connection: 'close' } });
        assert.equal(res.status, 401, 'a signed-out session is refused by every worker');
      }

      run.child.kill('SIGTERM');
      const [code] = await run.exited;
      assert.equal(code, 0, run.output());
      await assert.rejects(fetch(`${base}/health`), 'nothing listens after shutdown');
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.end();
    }
  });
});
