import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { embeddedRunOnly } from '../fixtures/suite-runs.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The pids below `pid`, read from /proc (Linux, where CI runs). */
function descendants(pid: number): number[] {
  const file = `/proc/${pid}/task/${pid}/children`;
  if (!fs.existsSync(file)) return [];
  const children = fs.readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return children.flatMap((c) => [c, ...descendants(c)]);
}

async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return check();
}

describe('npm start and signals', function () {
  this.timeout(120_000);

  it('stops the server gracefully when SIGTERM reaches the npm process, leaving no orphan', async function () {
    // `npm start` runs on the embedded database here, whichever run of the suite this is.
    embeddedRunOnly(this);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-npm-start-'));
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' };
    delete env.DATABASE_URL;
    const npm = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    npm.stdout.on('data', (c) => (output += c));
    npm.stderr.on('data', (c) => (output += c));
    const exited = new Promise<void>((resolve) => npm.on('exit', () => resolve()));
    let below: number[] = [];
    try {
      const health = () => fetch(`http://127.0.0.1:${port}/api/v1/health`).then((r) => r.ok, () => false);
      assert.ok(await until(health, 90_000), `the server did not start:\n${output}`);
      below = descendants(npm.pid!);
      assert.ok(below.length > 0);

      npm.kill('SIGTERM');
      await exited;
      assert.ok(await until(() => below.every((pid) => !alive(pid)), 20_000), `still running: ${below.filter(alive).join(', ')}`);
      assert.equal(await health(), false);
      assert.match(output, /shutting down/);
    } finally {
      for (const pid of below) if (alive(pid)) process.kill(pid, 'SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
