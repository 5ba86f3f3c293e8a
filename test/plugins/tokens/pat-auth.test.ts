import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, signUp, type SignedUpUser } from '../../../core/testing.ts';
import { checksummedSecret } from '../../../core/secrets.ts';
import { LastUsedRecorder } from '../../../plugins/tokens/last-used.ts';
import { createPat, eventually } from './helpers.ts';

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('tokens: authenticating with a personal access token', () => {
  let t: TestKernel;
  let alice: SignedUpUser;
  /** SQL statements the kernel ran, recorded while `recording` is on. */
  let statements: string[] = [];
  let recording = false;

  before(async () => {
    t = await startTestKernel();
    t.db.on('query', (q: { sql: string }) => {
      if (recording) statements.push(q.sql);
    });
    alice = await signUp(t);
  });
  after(() => t.stop());

  async function recordDuring(fn: () => Promise<unknown>): Promise<string[]> {
    statements = [];
    recording = true;
    try {
      await fn();
    } finally {
      recording = false;
    }
    return statements;
  }

  it('authenticates as its owner', async () => {
    const pat = await createPat(t, alice);
    const me = await t.request.get('/api/v1/me').set(pat.auth).expect(200);
    assert.equal(me.body.id, alice.id);
    assert.equal(me.body.email, alice.email);
  });

  it('stops working on the very next request after it is deleted', async () => {
    const pat = await createPat(t, alice);
    await t.request.get('/api/v1/me').set(pat.auth).expect(200);
    await t.request.delete(`/api/v1/me/tokens/${pat.id}`).set(alice.auth).expect(204);
    const res = await t.request.get('/api/v1/me').set(pat.auth).expect(401);
    assert.equal(res.body.code, 'unauthenticated');
    assert.equal(res.headers['content-type'], 'application/problem+json');
  });

  it('refuses a token whose checksum does not match, without asking the database', async () => {
    const pat = await createPat(t, alice);
    const last = pat.token.at(-1)!;
    const tampered = pat.token.slice(0, -1) + (last === 'A' ? 'B' : 'A');
    const sql = await recordDuring(() => t.request.get('/api/v1/me').set(bearer(tampered)).expect(401));
    assert.ok(!sql.some((s) => s.includes('personal_access_tokens')), sql.join('\n'));
  });

  it('refuses a well-formed token that was never issued', async () => {
    const sql = await recordDuring(() => t.request.get('/api/v1/me').set(bearer(checksummedSecret('tpat_'))).expect(401));
    assert.equal(sql.filter((s) => s.includes('personal_access_tokens')).length, 1, 'one lookup, no more');
  });

  it('scope read may GET but not change (403); write and admin may change', async () => {
    const read = await createPat(t, alice, { scope: 'read' });
    await t.request.get('/api/v1/me').set(read.auth).expect(200);
    const denied = await t.request.patch('/api/v1/me').set(read.auth).send({ name: 'Read Only' }).expect(403);
    assert.equal(denied.body.code, 'forbidden');
    const me = await t.request.get('/api/v1/me').set(alice.auth).expect(200);
    assert.notEqual(me.body.name, 'Read Only');

    const write = await createPat(t, alice, { scope: 'write' });
    const changed = await t.request.patch('/api/v1/me').set(write.auth).send({ name: 'Written' }).expect(200);
    assert.equal(changed.body.name, 'Written');

    const admin = await createPat(t, alice, { scope: 'admin' });
    await t.request.patch('/api/v1/me').set(admin.auth).send({ name: 'Admin Scope' }).expect(200);
  });

  it("refuses a disabled user's token (401)", async () => {
    const erin = await signUp(t);
    const pat = await createPat(t, erin);
    await t.request.get('/api/v1/me').set(pat.auth).expect(200);
    await t.db('users').where('id', erin.id).update({ disabled_at: new Date() });
    await t.request.get('/api/v1/me').set(pat.auth).expect(401);
  });

  it('refuses an expired token (401)', async () => {
    const pat = await createPat(t, alice);
    await t.db('personal_access_tokens').where('id', pat.id).update({ expires_at: new Date(Date.now() - 1000) });
    await t.request.get('/api/v1/me').set(pat.auth).expect(401);
  });

  it('records last_used_at after use, writing at most once per minute', async () => {
    const pat = await createPat(t, alice);
    const listed = async () => {
      const res = await t.request.get('/api/v1/me/tokens').set(alice.auth).query({ limit: 200 }).expect(200);
      return res.body.data.find((d: { id: string }) => d.id === pat.id) as { last_used_at: string | null };
    };
    assert.equal((await listed()).last_used_at, null);

    const sql = await recordDuring(async () => {
      // Concurrent, so most requests authenticate before the first write has landed.
      await Promise.all(Array.from({ length: 20 }, () => t.request.get('/api/v1/me').set(pat.auth).expect(200)));
      await eventually(async () => (await listed()).last_used_at);
    });
    const writes = sql.filter((s) => /^update "personal_access_tokens"/i.test(s));
    assert.equal(writes.length, 1, `expected one write for 20 uses:\n${writes.join('\n')}`);
    const usedAt = Date.parse((await listed()).last_used_at!);
    assert.ok(Math.abs(Date.now() - usedAt) < 60_000);
  });

  it('writes last_used_at once per token per interval, however often the token is used', async () => {
    const pat = await createPat(t, alice);
    const recorder = new LastUsedRecorder(t.db, t.kernel.logger, 60_000);
    const start = Date.now();
    const sql = await recordDuring(async () => {
      for (let i = 0; i < 5; i++) recorder.touch(pat.id, null, start + i);
      await recorder.drain();
      recorder.touch(pat.id, null, start + 61_000);
      await recorder.drain();
    });
    assert.equal(sql.filter((s) => /^update "personal_access_tokens"/i.test(s)).length, 2);
    // A row already stamped within the interval (say by another instance) needs no write at all.
    const none = await recordDuring(async () => {
      new LastUsedRecorder(t.db, t.kernel.logger, 60_000).touch(pat.id, new Date());
    });
    assert.equal(none.length, 0);
  });
});
