import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../core/db.ts';
import { StartupError } from '../../core/errors.ts';
import { startFixture, type FixtureChild } from '../fixtures/child-process.ts';

// PGlite is the embedded default whatever DATABASE_URL says, so these run in both suites.
describe('PGlite data directory lock', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-lock-'));
  const lockFile = path.join(dataDir, 'pglite', 'tessera.lock');
  let child: FixtureChild;
  let holderPid: number;

  before(async function () {
    this.timeout(60000);
    child = startFixture('pglite-holder-child.ts', { FIXTURE_DATA_DIR: dataDir });
    ({ pid: holderPid } = await child.message<{ pid: number }>('holding'));
  });
  after(async () => {
    await child.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a second process with a clear database_locked error while the first holds the directory', async () => {
    await assert.rejects(openDatabase({ dataDir }), (err: unknown) => {
      assert.ok(err instanceof StartupError);
      assert.equal(err.code, 'database_locked');
      assert.match(err.message, new RegExp(`already open in process ${holderPid}\\b`));
      assert.ok(err.message.includes(path.join(dataDir, 'pglite')), 'names the directory');
      assert.match(err.message, /DATA_DIR/);
      return true;
    });
    assert.equal(fs.readFileSync(lockFile, 'utf8'), String(holderPid), 'the holder keeps its lock');
  });

  it('takes over the stale lock of a SIGKILLed holder, with its committed data intact, and releases it on close', async function () {
    this.timeout(60000);
    await child.kill();
    assert.equal(fs.readFileSync(lockFile, 'utf8'), String(holderPid), 'a killed holder leaves its lock behind');

    const db = await openDatabase({ dataDir });
    try {
      assert.equal(fs.readFileSync(lockFile, 'utf8'), String(process.pid));
      assert.deepEqual(await db.knex('holder_rows').pluck('note'), ['written before the crash']);
    } finally {
      await db.close();
    }
    assert.ok(!fs.existsSync(lockFile), 'closing releases the lock');
  });
});
