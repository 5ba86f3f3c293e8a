import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../../core/config.ts';
import { KEY_FILE, readKeyFile, SecretBox } from '../../core/secret-box.ts';
import { createWorkspace, signUp, startTestKernel, type TestStorage } from '../../core/testing.ts';
import { sealContext } from '../../plugins/integrations/connections.service.ts';
import { rotateSecretKey } from '../../scripts/rotate-secret-key.ts';

/**
 * `npm run rotate-secret-key` on an instance keyed by its data directory's key file: every sealed value moves to a new
 * key in one transaction, the old key leaves the file, and a kernel started afterwards opens everything.
 */
describe('rotate-secret-key', function () {
  this.timeout(120_000);

  it('seals every stored secret again under a new key file key, which the next start opens', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-rotate-'));
    const storage: TestStorage = process.env.DATABASE_URL ? { schema: `t_${randomBytes(6).toString('hex')}`, dataDir } : { dataDir };
    try {
      const first = await startTestKernel({ storage });
      const ws = (await createWorkspace(first, await signUp(first))).id;
      const id = crypto.randomUUID();
      const box = first.kernel.container.resolverFor('kernel')('secrets').get();
      const oldKey = box.currentKeyId;
      await first.db('integration_connections').insert({ id, workspace_id: ws, provider: 'github', name: 'Rotated', status: 'active', webhook_secret: box.seal('before-rotation', sealContext(id, 'webhook_secret')) });
      await first.stop({ keep: true });
      const [oldText] = readKeyFile(dataDir);

      const config = loadConfig({ env: {}, input: { dataDir, databaseUrl: process.env.DATABASE_URL, logLevel: 'silent' } });
      const result = await rotateSecretKey({ config, schema: storage.schema });
      assert.notEqual(result.keyId, oldKey);
      assert.equal(result.resealed['integrations.connections'], 1);
      const texts = readKeyFile(dataDir);
      assert.equal(texts.length, 1, 'the old key has left the file');
      assert.notEqual(texts[0], oldText);
      assert.equal(fs.statSync(path.join(dataDir, KEY_FILE)).mode & 0o777, 0o600);

      const second = await startTestKernel({ storage });
      try {
        const row = await second.db('integration_connections').where({ id }).first('webhook_secret');
        assert.equal(SecretBox.keyIdOf(row.webhook_secret), result.keyId);
        assert.equal(second.kernel.container.resolverFor('kernel')('secrets').get().open(row.webhook_secret, sealContext(id, 'webhook_secret')), 'before-rotation');
      } finally {
        await second.stop();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (storage.schema) {
        const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${storage.schema}" CASCADE; DROP SCHEMA IF EXISTS "${storage.schema}_jobs" CASCADE`);
        await client.end();
      }
    }
  });
});
