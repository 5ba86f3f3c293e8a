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

  before(async () => {
    t = await startTestKernel({ config: { http: { trustProxy: true } } });
  });
  after(() => t.stop());

  it('after 5 failures for an email (any case) answers 429 rate_limited with Retry-After, even to the right password', async () => {
    const u = await signUp(t, { password: PASSWORD });
    await fail(u.email, freshIp(), 5);
    const res = await signIn(u.email.toUpperCase(), PASSWORD, freshIp());
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

  it('treats an email without an account exactly like one with an account', async () => {
    const ghost = `ghost${Date.now()}@example.test`;
    const real = await signUp(t, { password: PASSWORD });
    await fail(ghost, freshIp(), 5);
    await fail(real.email, freshIp(), 5);
    const a = await signIn(ghost, 'wrong password', freshIp());
    const b = await signIn(real.email, 'wrong password', freshIp());
    assert.deepEqual([a.status, b.status], [429, 429]);
    assert.equal(a.body.detail.replace(/\d+/g, 'N'), b.body.detail.replace(/\d+/g, 'N'));
  });

  it('a successful sign-in clears the email\'s counter', async () => {
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

  it('lets the email in again once its window has passed', async () => {
    const u = await signUp(t, { password: PASSWORD });
    await fail(u.email, freshIp(), 5);
    assert.equal((await signIn(u.email, PASSWORD, freshIp())).status, 429);
    await t.db('auth_sign_in_failures').update({ window_started: t.db.raw("now() - interval '16 minutes'") });
    assert.equal((await signIn(u.email, PASSWORD, freshIp())).status, 200);
  });

  it('stores hashed keys only and prunes rows whose window has ended', async () => {
    await t.db('auth_sign_in_failures').insert({ key: 'stale', failures: 3, window_started: t.db.raw("now() - interval '1 day'") });
    const email = `stored${Date.now()}@example.test`;
    await fail(email, freshIp(), 1);
    const rows = await t.db('auth_sign_in_failures').select('key');
    assert.ok(!rows.some((r) => r.key === 'stale'), 'the stale row was pruned');
    assert.ok(rows.length > 0 && rows.every((r) => /^[0-9a-f]{64}$/.test(r.key)), 'keys are hashes, never emails or addresses');
  });

  it('shares counters between instances on one PostgreSQL', async function () {
    if (!process.env.DATABASE_URL) this.skip(); // PGlite is one process by design
    const second = await startTestKernel({ config: { http: { trustProxy: true } }, storage: t.storage });
    try {
      const u = await signUp(t, { password: PASSWORD });
      await fail(u.email, freshIp(), 5);
      assert.equal((await signIn(u.email, PASSWORD, freshIp(), second)).status, 429);
    } finally {
      await second.stop({ keep: true });
    }
  });
});
