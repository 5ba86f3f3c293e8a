import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, signUp } from '../../../core/testing.ts';

const PASSWORD = 'correct horse battery';
let ipCounter = 1;
/** Each test signs in from addresses of its own (X-Forwarded-For, trusted in this kernel), so IP counters do not leak between tests. */
const freshIp = () => `10.0.${Math.floor(ipCounter / 250)}.${ipCounter++ % 250}`;

describe('auth: sign-in rate limiting', () => {
  let t: TestKernel;
  const signIn = (email: string, password: string, ip: string, on: TestKernel = t) =>
    on.request.post('/api/v1/auth/sign-in').set('X-Forwarded-For', ip).send({ email, password });
  const fail = async (email: string, ip: string, times: number) => {
    for (let i = 0; i < times; i++) assert.equal((await signIn(email, 'wrong password', ip)).status, 401, `failure #${i + 1} is a 401`);
  };

  // The per-account ceiling is lowered so that reaching it takes a few requests, not a hundred.
  const ACCOUNT_MAX = 12;
  before(async () => {
    t = await startTestKernel({ config: { http: { trustProxy: true }, plugins: { auth: { options: { signInRateLimit: { maxFailuresPerAccount: ACCOUNT_MAX } } } } } });
  });
  after(() => t.stop());

  it('after 5 failures for an email (any case) from one address answers that address 429 rate_limited with Retry-After, even to the right password', async () => {
    const u = await signUp(t, { password: PASSWORD });
    const ip = freshIp();
    await fail(u.email, ip, 5);
    const res = await signIn(u.email.toUpperCase(), PASSWORD, ip);
    assert.equal(res.status, 429);
    assert.equal(res.headers['content-type'], 'application/problem+json');
    assert.equal(res.body.code, 'rate_limited');
    const retryAfter = Number(res.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 15 * 60, `Retry-After ${res.headers['retry-after']}`);
    assert.equal(res.body.token, undefined);
    // Someone else, from elsewhere, is not affected.
    const other = await signUp(t, { password: PASSWORD });
    assert.equal((await signIn(other.email, PASSWORD, freshIp())).status, 200);
  });

  it('does not lock the owner out: failures from one address leave the account open from every other', async () => {
    const u = await signUp(t, { password: PASSWORD });
    const attacker = freshIp();
    await fail(u.email, attacker, 5);
    assert.equal((await signIn(u.email, 'wrong password', attacker)).status, 429, 'the guesser slows itself down');
    const owner = freshIp();
    const res = await signIn(u.email, PASSWORD, owner);
    assert.equal(res.status, 200, res.text);
    await t.request.get('/api/v1/me').set('Authorization', `Bearer ${res.body.token}`).expect(200);
    // The owner's own typo from their address counts on their address only.
    await fail(u.email, owner, 1);
    assert.equal((await signIn(u.email, PASSWORD, owner)).status, 200);
    assert.equal((await signIn(u.email, PASSWORD, attacker)).status, 429, 'the right password from the guessing address still waits');
  });

  it(`limits one email across many addresses (maxFailuresPerAccount, ${ACCOUNT_MAX} here): then every address waits, for up to an hour`, async () => {
    const u = await signUp(t, { password: PASSWORD });
    // Four from each address: under the per-address limit of 5 everywhere.
    for (let i = 0; i < ACCOUNT_MAX / 4; i++) await fail(u.email, freshIp(), 4);
    const res = await signIn(u.email, PASSWORD, freshIp());
    assert.equal(res.status, 429);
    assert.equal(res.body.code, 'rate_limited');
    const retryAfter = Number(res.headers['retry-after']);
    assert.ok(retryAfter > 15 * 60 && retryAfter <= 60 * 60, `Retry-After ${retryAfter}`);
    // A success elsewhere forgives no part of that ceiling; other accounts are not affected.
    const other = await signUp(t, { password: PASSWORD });
    assert.equal((await signIn(other.email, PASSWORD, freshIp())).status, 200);
  });

  it('treats an email without an account exactly like one with an account', async () => {
    const ghost = `ghost${Date.now()}@example.test`;
    const real = await signUp(t, { password: PASSWORD });
    const [ghostIp, realIp] = [freshIp(), freshIp()];
    await fail(ghost, ghostIp, 5);
    await fail(real.email, realIp, 5);
    const a = await signIn(ghost, 'wrong password', ghostIp);
    const b = await signIn(real.email, 'wrong password', realIp);
    assert.deepEqual([a.status, b.status], [429, 429]);
    assert.equal(a.body.detail.replace(/\d+/g, 'N'), b.body.detail.replace(/\d+/g, 'N'));
  });

  it('a successful sign-in clears the counter of its email from its address', async () => {
    const u = await signUp(t, { password: PASSWORD });
    const ip = freshIp();
    await fail(u.email, ip, 4);
    assert.equal((await signIn(u.email, PASSWORD, ip)).status, 200);
    await fail(u.email, ip, 4); // would be failures 5–8 without the reset
    assert.equal((await signIn(u.email, PASSWORD, ip)).status, 200);
  });

  it('limits one IP address across many emails (default 20 failures)', async () => {
    const ip = freshIp();
    for (let i = 0; i < 20; i++) await fail(`spray${i}-${Date.now()}@example.test`, ip, 1);
    const u = await signUp(t, { password: PASSWORD });
    const res = await signIn(u.email, PASSWORD, ip);
    assert.equal(res.status, 429);
    assert.ok(Number(res.headers['retry-after']) > 0);
    assert.equal((await signIn(u.email, PASSWORD, freshIp())).status, 200);
  });

  it('lets the email in again from that address once its window has passed', async () => {
    const u = await signUp(t, { password: PASSWORD });
    const ip = freshIp();
    await fail(u.email, ip, 5);
    assert.equal((await signIn(u.email, PASSWORD, ip)).status, 429);
    await t.db('auth_sign_in_failures').where('window_seconds', 15 * 60).update({ window_started: t.db.raw("now() - interval '16 minutes'") });
    assert.equal((await signIn(u.email, PASSWORD, ip)).status, 200);
  });

  it('stores hashed keys only and prunes rows whose window has ended', async () => {
    await t.db('auth_sign_in_failures').insert({ key: 'stale', failures: 3, window_started: t.db.raw("now() - interval '1 day'") });
    const email = `stored${Date.now()}@example.test`;
    await fail(email, freshIp(), 1);
    const rows = await t.db('auth_sign_in_failures').select('key', 'account_key');
    assert.ok(!rows.some((r) => r.key === 'stale'), 'the stale row was pruned');
    const hashed = (v: string | null) => v === null || /^[0-9a-f]{64}$/.test(v);
    assert.ok(rows.length > 0 && rows.every((r) => hashed(r.key) && hashed(r.account_key)), 'keys are hashes, never emails or addresses');
  });

  it('shares counters between instances on one PostgreSQL', async function () {
    if (!process.env.DATABASE_URL) this.skip(); // PGlite is one process by design
    const second = await startTestKernel({ config: { http: { trustProxy: true } }, storage: t.storage });
    try {
      const u = await signUp(t, { password: PASSWORD });
      const ip = freshIp();
      await fail(u.email, ip, 5);
      assert.equal((await signIn(u.email, PASSWORD, ip, second)).status, 429);
    } finally {
      await second.stop({ keep: true });
    }
  });
});
