import assert from 'node:assert/strict';
import { verify } from '@node-rs/argon2';
import { startTestKernel, type TestKernel, signUp, type SignedUpUser } from '../../../core/testing.ts';
import { hashSecret } from '../../../core/secrets.ts';
import { createPat } from '../tokens/helpers.ts';
import { waitUntil } from '../../fixtures/wait.ts';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new horse';
const PUBLIC_URL = 'https://tessera.example';
const RESET_LINK = /https:\/\/tessera\.example\/reset-password\/([0-9A-Za-z]{43})/;

let ipCounter = 1;
/** Requests from addresses of their own (X-Forwarded-For, trusted here), so per-IP counters do not leak between tests. */
const freshIp = () => `10.1.${Math.floor(ipCounter / 250)}.${ipCounter++ % 250}`;

function assertProblem(res: { status: number; headers: Record<string, string>; body: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.headers['content-type'], 'application/problem+json');
  assert.equal(res.body.code, code);
}

describe('auth: passwords', () => {
  let t: TestKernel;
  let root: SignedUpUser;
  const me = (auth: { Authorization: string }) => t.request.get('/api/v1/me').set(auth);
  const signIn = (email: string, password: string) => t.request.post('/api/v1/auth/sign-in').set('X-Forwarded-For', freshIp()).send({ email, password });
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const requestReset = (email: string, ip = freshIp()) => t.request.post('/api/v1/auth/password-reset').set('X-Forwarded-For', ip).send({ email });
  const confirm = (token: string, password = NEW_PASSWORD) => t.request.post('/api/v1/auth/password-reset/confirm').send({ token, password });
  const outboxFor = (to: string) => t.db('mail_outbox').where({ to }).orderBy('created_at').select('subject', 'text');
  /** The token of the `n`th reset mail to `email` (1-based), once it has been delivered to the outbox. */
  const mailedToken = async (email: string, n = 1): Promise<string> => {
    const rows = await waitUntil(`reset mail #${n} to ${email}`, async () => {
      const found = await outboxFor(email);
      return found.length >= n && found;
    });
    const match = RESET_LINK.exec(rows[n - 1].text);
    assert.ok(match, rows[n - 1].text);
    return match[1];
  };
  const passwordHashOf = async (id: string) => (await t.db('users').where({ id }).first('password_hash')).password_hash;
  const sessionCount = async (id: string) => Number((await t.db('sessions').where({ user_id: id }).count({ n: '*' }).first())!.n);

  before(async () => {
    t = await startTestKernel({
      config: {
        publicUrl: PUBLIC_URL,
        http: { trustProxy: true },
        plugins: { auth: { options: { passwordResetTtlMinutes: 30, passwordResetRateLimit: { maxPerEmail: 3, maxPerIp: 5, windowMinutes: 60 } } } },
      },
    });
    root = await signUp(t, { password: PASSWORD });
  });
  after(() => t.stop());

  describe('POST /me/password', () => {
    it('sets the new password (argon2, as sign-up) and ends every other session, not this one', async () => {
      const u = await signUp(t, { password: PASSWORD });
      const other = await signIn(u.email, PASSWORD).expect(200);
      await t.request.post('/api/v1/me/password').set(u.auth).send({ current_password: PASSWORD, new_password: NEW_PASSWORD }).expect(204);
      await me(u.auth).expect(200);
      assertProblem(await me(bearer(other.body.token)), 401, 'unauthenticated');
      assert.equal(await sessionCount(u.id), 1);
      const stored = await passwordHashOf(u.id);
      assert.match(stored, /^\$argon2id\$/);
      assert.equal(await verify(stored, NEW_PASSWORD), true);
      assertProblem(await signIn(u.email, PASSWORD), 401, 'unauthenticated');
      await signIn(u.email, NEW_PASSWORD).expect(200);
    });

    it('refuses a wrong current password with 422 wrong_password at /current_password and changes nothing', async () => {
      const u = await signUp(t, { password: PASSWORD });
      const other = await signIn(u.email, PASSWORD).expect(200);
      const before = await passwordHashOf(u.id);
      const res = await t.request.post('/api/v1/me/password').set(u.auth).send({ current_password: 'not it at all', new_password: NEW_PASSWORD });
      assertProblem(res, 422, 'wrong_password');
      assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/current_password']);
      assert.equal(await passwordHashOf(u.id), before);
      await me(bearer(other.body.token)).expect(200);
    });

    it('counts wrong current passwords as failed sign-ins of the email from that address: past the limit it is 429 rate_limited', async () => {
      const u = await signUp(t, { password: PASSWORD });
      const ip = freshIp();
      for (let i = 0; i < 5; i++) {
        assert.equal((await t.request.post('/api/v1/me/password').set(u.auth).set('X-Forwarded-For', ip).send({ current_password: `wrong ${i}`, new_password: NEW_PASSWORD })).status, 422);
      }
      const res = await t.request.post('/api/v1/me/password').set(u.auth).set('X-Forwarded-For', ip).send({ current_password: PASSWORD, new_password: NEW_PASSWORD });
      assertProblem(res, 429, 'rate_limited');
      assert.ok(Number(res.headers['retry-after']) > 0);
      assert.equal(await verify(await passwordHashOf(u.id), PASSWORD), true);
    });

    it('validates the new password like sign-up, with a pointer, and changes nothing', async () => {
      const u = await signUp(t, { password: PASSWORD });
      const before = await passwordHashOf(u.id);
      const res = await t.request.post('/api/v1/me/password').set(u.auth).send({ current_password: PASSWORD, new_password: 'short' });
      assertProblem(res, 422, 'validation_failed');
      assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/new_password']);
      assert.equal(await passwordHashOf(u.id), before);
    });

    it('spends a reset link mailed before the change, so it cannot undo it', async () => {
      const u = await signUp(t, { password: PASSWORD });
      await requestReset(u.email).expect(202);
      const token = await mailedToken(u.email);
      await t.request.post('/api/v1/me/password').set(u.auth).send({ current_password: PASSWORD, new_password: NEW_PASSWORD }).expect(204);
      assertProblem(await confirm(token, 'what the thief wanted'), 422, 'reset_token_invalid');
      assert.equal(await verify(await passwordHashOf(u.id), NEW_PASSWORD), true);
    });

    it('needs a session: a personal access token is 403, nobody is 401', async () => {
      const u = await signUp(t, { password: PASSWORD });
      const pat = await createPat(t, u, { scope: 'admin' });
      assertProblem(await t.request.post('/api/v1/me/password').set(pat.auth).send({ current_password: PASSWORD, new_password: NEW_PASSWORD }), 403, 'forbidden');
      assertProblem(await t.request.post('/api/v1/me/password').send({ current_password: PASSWORD, new_password: NEW_PASSWORD }), 401, 'unauthenticated');
      assert.equal(await verify(await passwordHashOf(u.id), PASSWORD), true);
    });
  });

  describe('password reset by mail', () => {
    it('answers 202 with one body for a known and an unknown address; only the known one gets a token (hashed) and a mail', async () => {
      const u = await signUp(t, { password: PASSWORD });
      const ghost = `ghost${Date.now()}@example.test`;
      const known = await requestReset(u.email.toUpperCase());
      const unknown = await requestReset(ghost);
      assert.equal(known.status, 202);
      assert.equal(unknown.status, 202);
      assert.deepEqual(known.body, unknown.body);
      assert.equal(known.body.status, 'accepted');

      const token = await mailedToken(u.email);
      const [mail] = await outboxFor(u.email);
      assert.match(mail.subject, /Reset your Tessera password/);
      assert.ok(mail.text.includes(token));
      const rows = await t.db('auth_password_resets').where({ user_id: u.id });
      assert.equal(rows.length, 1);
      assert.equal(rows[0].token_hash, hashSecret(token));
      assert.equal(JSON.stringify(rows[0]).includes(token), false, 'the token itself is not stored');
      assert.equal(rows[0].used_at, null);
      const ttl = rows[0].expires_at.getTime() - Date.now();
      assert.ok(ttl > 29 * 60_000 && ttl <= 30 * 60_000, `passwordResetTtlMinutes: 30 gives expiry in ${ttl} ms`);
      assert.deepEqual(await outboxFor(ghost), []);
    });

    it('confirming sets the password, spends the token and ends every session; the token works once', async () => {
      const u = await signUp(t, { password: PASSWORD });
      const other = await signIn(u.email, PASSWORD).expect(200);
      await requestReset(u.email).expect(202);
      const token = await mailedToken(u.email);
      const res = await confirm(token);
      assert.equal(res.status, 204, JSON.stringify(res.body));
      assert.equal(res.headers['cache-control'], 'no-store');
      assertProblem(await me(u.auth), 401, 'unauthenticated');
      assertProblem(await me(bearer(other.body.token)), 401, 'unauthenticated');
      assert.equal(await sessionCount(u.id), 0);
      assert.equal(await verify(await passwordHashOf(u.id), NEW_PASSWORD), true);
      assert.notEqual((await t.db('auth_password_resets').where({ token_hash: hashSecret(token) }).first()).used_at, null);
      await signIn(u.email, NEW_PASSWORD).expect(200);

      const again = await confirm(token, 'yet another password');
      assertProblem(again, 422, 'reset_token_invalid');
      assert.deepEqual(again.body.errors.map((e: { pointer: string }) => e.pointer), ['/token']);
      assert.equal(await verify(await passwordHashOf(u.id), NEW_PASSWORD), true);
    });

    it('answers unknown, used and expired tokens alike with 422 reset_token_invalid', async () => {
      const u = await signUp(t, { password: PASSWORD });
      await requestReset(u.email).expect(202);
      const token = await mailedToken(u.email);
      await t.db('auth_password_resets').where({ token_hash: hashSecret(token) }).update({ expires_at: t.db.raw("now() - interval '1 second'") });
      const expired = await confirm(token);
      const unknown = await confirm('x'.repeat(43));
      assertProblem(expired, 422, 'reset_token_invalid');
      assertProblem(unknown, 422, 'reset_token_invalid');
      assert.equal(expired.body.detail, unknown.body.detail);
      assert.equal(await verify(await passwordHashOf(u.id), PASSWORD), true);
      await me(u.auth).expect(200);
    });

    it('lets only one of two concurrent confirmations of a token through', async () => {
      const u = await signUp(t, { password: PASSWORD });
      await requestReset(u.email).expect(202);
      const token = await mailedToken(u.email);
      const results = await Promise.all([confirm(token, 'first horse battery'), confirm(token, 'second horse battery')]);
      assert.deepEqual(results.map((r) => r.status).sort(), [204, 422]);
      const winner = results[0].status === 204 ? 'first horse battery' : 'second horse battery';
      assert.equal(await verify(await passwordHashOf(u.id), winner), true);
    });

    it('a new request replaces the earlier token', async () => {
      const u = await signUp(t, { password: PASSWORD });
      await requestReset(u.email).expect(202);
      const first = await mailedToken(u.email, 1);
      await requestReset(u.email).expect(202);
      const second = await mailedToken(u.email, 2);
      assertProblem(await confirm(first), 422, 'reset_token_invalid');
      await confirm(second).expect(204);
    });

    it('an invalid new password is 422 at /password and leaves the token usable', async () => {
      const u = await signUp(t, { password: PASSWORD });
      await requestReset(u.email).expect(202);
      const token = await mailedToken(u.email);
      const res = await confirm(token, 'short');
      assertProblem(res, 422, 'validation_failed');
      assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/password']);
      assert.equal((await t.db('auth_password_resets').where({ token_hash: hashSecret(token) }).first()).used_at, null);
      await me(u.auth).expect(200);
      await confirm(token).expect(204);
    });

    it('limits requests per email (any case, known or not) and per IP address with 429 and Retry-After', async () => {
      const u = await signUp(t, { password: PASSWORD });
      for (let i = 0; i < 3; i++) await requestReset(i % 2 ? u.email.toUpperCase() : u.email).expect(202);
      const limited = await requestReset(u.email);
      assertProblem(limited, 429, 'rate_limited');
      const retryAfter = Number(limited.headers['retry-after']);
      assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 3600, `Retry-After ${limited.headers['retry-after']}`);
      const ghost = `ghost-limit${Date.now()}@example.test`;
      for (let i = 0; i < 3; i++) await requestReset(ghost).expect(202);
      assert.equal((await requestReset(ghost)).status, 429, 'an address without an account is limited the same way');

      const ip = freshIp();
      for (let i = 0; i < 5; i++) await requestReset(`spray${i}-${Date.now()}@example.test`, ip).expect(202);
      assertProblem(await requestReset(`spray-last-${Date.now()}@example.test`, ip), 429, 'rate_limited');

      const rows = await t.db('auth_rate_counters').select('key');
      assert.ok(rows.every((r) => /^[0-9a-f]{64}$/.test(r.key)), 'keys are hashes, never emails or addresses');
    });

    it('sends nothing for a disabled account, with the same answer', async () => {
      const u = await signUp(t, { password: PASSWORD });
      await t.db('users').where({ id: u.id }).update({ disabled_at: t.db.fn.now() });
      const res = await requestReset(u.email).expect(202);
      assert.equal(res.body.status, 'accepted');
      assert.equal(await t.db('auth_password_resets').where({ user_id: u.id }).first(), undefined);
    });
  });

  describe('POST /admin/users/{id}/password-reset', () => {
    it('ends every session, makes the password unusable and mails a reset link that restores access', async () => {
      const u = await signUp(t, { password: PASSWORD });
      const other = await signIn(u.email, PASSWORD).expect(200);
      const res = await t.request.post(`/api/v1/admin/users/${u.id}/password-reset`).set(root.auth);
      assert.equal(res.status, 202, JSON.stringify(res.body));
      assertProblem(await me(u.auth), 401, 'unauthenticated');
      assertProblem(await me(bearer(other.body.token)), 401, 'unauthenticated');
      assert.equal(await passwordHashOf(u.id), null);
      assertProblem(await signIn(u.email, PASSWORD), 401, 'unauthenticated');

      const token = await mailedToken(u.email);
      const [mail] = await outboxFor(u.email);
      assert.match(mail.subject, /was reset/);
      await confirm(token).expect(204);
      await signIn(u.email, NEW_PASSWORD).expect(200);
    });

    it('is 404 for an unknown user and 403 for anyone but an instance admin, changing nothing', async () => {
      const u = await signUp(t, { password: PASSWORD });
      assertProblem(await t.request.post('/api/v1/admin/users/00000000-0000-4000-8000-000000000000/password-reset').set(root.auth), 404, 'not_found');
      assertProblem(await t.request.post(`/api/v1/admin/users/${root.id}/password-reset`).set(u.auth), 403, 'forbidden');
      await me(root.auth).expect(200);
      assert.notEqual(await passwordHashOf(root.id), null);
    });
  });
});

describe('auth: password reset without the mail plugin', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ config: { plugins: { mail: { enabled: false } } } });
  });
  after(() => t.stop());

  it('answers 503 to every address and to the forced reset, and changes nothing', async () => {
    const root = await signUp(t, { password: PASSWORD });
    const u = await signUp(t, { password: PASSWORD });
    const known = await t.request.post('/api/v1/auth/password-reset').send({ email: u.email });
    const unknown = await t.request.post('/api/v1/auth/password-reset').send({ email: `ghost${Date.now()}@example.test` });
    assertProblem(known, 503, 'service_unavailable');
    assert.equal(unknown.status, 503);
    assert.equal(known.body.detail, unknown.body.detail);
    assertProblem(await t.request.post(`/api/v1/admin/users/${u.id}/password-reset`).set(root.auth), 503, 'service_unavailable');
    await t.request.get('/api/v1/me').set(u.auth).expect(200);
    assert.notEqual((await t.db('users').where({ id: u.id }).first()).password_hash, null);
    assert.equal(await t.db('auth_password_resets').first(), undefined);
  });
});
