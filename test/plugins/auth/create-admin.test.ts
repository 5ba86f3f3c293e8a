import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { verify } from '@node-rs/argon2';
import { loadConfig } from '../../../core/config.ts';
import { openDatabase } from '../../../core/db.ts';
import { AppError } from '../../../core/errors.ts';
import { newTestStorage, startTestKernel, signUp } from '../../../core/testing.ts';
import { createAdmin } from '../../../scripts/create-admin.ts';
import { embeddedRunOnly } from '../../fixtures/suite-runs.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PASSWORD = 'admin password 42';

describe('auth: npm run create-admin', () => {
  it('creates an instance admin on the configured embedded database, prints only its id and never the password', async function () {
    this.timeout(120_000);
    embeddedRunOnly(this);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-create-admin-'));
    try {
      fs.writeFileSync(path.join(dir, 'tessera.config.json'), JSON.stringify({ logLevel: 'info' }));
      const env = { PATH: process.env.PATH, HOME: process.env.HOME, TESSERA_CONFIG: path.join(dir, 'tessera.config.json'), DATA_DIR: path.join(dir, 'data'), TESSERA_ADMIN_PASSWORD: PASSWORD };
      const run = (args: string[]) => promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/create-admin.ts', ...args], { cwd: ROOT, env });
      const { stdout, stderr } = await run(['--email', 'Root@Example.test', '--name', 'Root']);
      assert.match(stdout, new RegExp(`^${UUID.source.slice(1, -1)}\\n$`));
      assert.ok(!`${stdout}${stderr}`.includes(PASSWORD), 'the password is printed nowhere');

      const short = await run(['--email', 'other@example.test', '--password', 'tiny-pw']).then(() => null, (err) => err);
      assert.equal(short?.code, 1);
      assert.match(short.stderr, /--password: Must NOT have fewer than 8 characters/);
      assert.ok(!`${short.stdout}${short.stderr}`.includes('tiny-pw'));
      const typo = await run(['--email', 'other@example.test', '--pasword=typo-secret-1']).then(() => null, (err) => err);
      assert.equal(typo?.code, 1);
      assert.match(typo.stderr, /unknown option/);
      assert.ok(!`${typo.stdout}${typo.stderr}`.includes('typo-secret-1'), 'a mistyped option does not echo its value');

      const db = await openDatabase({ dataDir: path.join(dir, 'data') });
      try {
        const users = await db.knex('users').select('id', 'email', 'name', 'is_instance_admin', 'password_hash');
        assert.equal(users.length, 1);
        assert.deepEqual([users[0].id, users[0].email, users[0].name, users[0].is_instance_admin], [stdout.trim(), 'Root@Example.test', 'Root', true]);
        assert.equal(await verify(users[0].password_hash, PASSWORD), true);
      } finally {
        await db.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('promotes an existing user, creates new admins, and validates input (createAdmin, on this test database)', async function () {
    this.timeout(120_000);
    const storage = newTestStorage();
    const dataDir = storage.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tessera-create-admin-'));
    const config = loadConfig({ env: {}, input: { logLevel: 'silent', databaseUrl: process.env.DATABASE_URL, dataDir } });
    const opts = { config, schema: storage.schema };
    try {
      let t = await startTestKernel({ storage });
      await signUp(t); // the instance's first user: admin already
      const member = await signUp(t, { password: 'member password' });
      await t.stop({ keep: true });

      const promoted = await createAdmin({ email: member.email.toUpperCase(), password: 'ignored for existing users' }, opts);
      assert.deepEqual(promoted, { id: member.id, email: member.email, created: false });
      const created = await createAdmin({ email: 'second.admin@example.test', name: 'Second', password: PASSWORD }, opts);
      assert.equal(created.created, true);
      assert.match(created.id, UUID);
      await assert.rejects(createAdmin({ email: 'no-password@example.test' }, opts), (err: AppError) => err.status === 422 && err.errors?.[0].pointer === '/password');
      await assert.rejects(createAdmin({ email: 'not an email', password: PASSWORD }, opts), (err: AppError) => err.errors?.[0].pointer === '/email');

      t = await startTestKernel({ storage });
      try {
        const rows = await t.db('users').whereIn('id', [member.id, created.id]).select('id', 'is_instance_admin');
        assert.deepEqual(rows.map((r) => r.is_instance_admin), [true, true]);
        assert.equal(await t.db('users').where({ email: 'no-password@example.test' }).first(), undefined);
        // The promoted user keeps their password; the new admin signs in with theirs.
        await t.request.post('/api/v1/auth/sign-in').send({ email: member.email, password: 'member password' }).expect(200);
        await t.request.post('/api/v1/auth/sign-in').send({ email: 'second.admin@example.test', password: PASSWORD }).expect(200);
      } finally {
        await t.stop();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
