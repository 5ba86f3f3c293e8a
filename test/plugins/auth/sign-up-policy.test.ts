import assert from 'node:assert/strict';
import { verify } from '@node-rs/argon2';
import { loadConfig } from '../../../core/config.ts';
import { newTestStorage, startTestKernel, type TestKernel, createWorkspace, type SignedUpUser } from '../../../core/testing.ts';
import { captureLogs } from '../../fixtures/log-capture.ts';

const PASSWORD = 'correct horse battery';
const ADMIN = { email: 'Root@Example.test', password: 'root password 42' };

function assertProblem(res: { status: number; headers: Record<string, string>; body: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.headers['content-type'], 'application/problem+json');
  assert.equal(res.body.code, code);
}

let unique = 0;
const newEmail = (tag: string) => `${tag}${Date.now()}-${unique++}@example.test`;
const signUpAs = (t: TestKernel, email: string, ip?: string) => {
  const req = t.request.post('/api/v1/auth/sign-up');
  if (ip) req.set('X-Forwarded-For', ip);
  return req.send({ email, password: PASSWORD, name: 'New' });
};
const userCount = async (t: TestKernel) => Number((await t.db('users').count({ n: '*' }).first())!.n);

async function signInAdmin(t: TestKernel): Promise<SignedUpUser> {
  const res = await t.request.post('/api/v1/auth/sign-in').send(ADMIN).expect(200);
  return { id: res.body.user.id, email: ADMIN.email, name: res.body.user.name, token: res.body.token, auth: { Authorization: `Bearer ${res.body.token}` } };
}

describe('auth: sign-up policy', () => {
  describe('closed', () => {
    let t: TestKernel;
    before(async () => {
      t = await startTestKernel({ config: { plugins: { auth: { options: { signUp: 'closed' } } } } });
    });
    after(() => t.stop());

    it('refuses every sign-up with 403 sign_up_closed, even the first of an empty instance, and stores nothing', async () => {
      assert.equal(await userCount(t), 0);
      assertProblem(await signUpAs(t, newEmail('first')), 403, 'sign_up_closed');
      assert.equal(await userCount(t), 0);
    });
  });

  describe('invite_only', () => {
    let t: TestKernel;
    let root: SignedUpUser;
    before(async () => {
      t = await startTestKernel({ config: { plugins: { auth: { options: { signUp: 'invite_only', admin: ADMIN } } } } });
      root = await signInAdmin(t);
    });
    after(() => t.stop());

    it('refuses an address without a pending invite with 403 sign_up_invite_only and stores nothing', async () => {
      const before = await userCount(t);
      assertProblem(await signUpAs(t, newEmail('uninvited')), 403, 'sign_up_invite_only');
      assert.equal(await userCount(t), before);
    });

    it('lets in an address with a pending invite (any case); a revoked invite does not count', async () => {
      const ws = await createWorkspace(t, root);
      const invited = newEmail('Invited');
      await t.request.post(`/api/v1/workspaces/${ws.id}/invites`).set(root.auth).send({ email: invited, role: 'member' }).expect(201);
      const res = await signUpAs(t, invited.toLowerCase());
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal((await t.db('users').where({ id: res.body.user.id }).first()).is_instance_admin, false);

      const revoked = newEmail('revoked');
      const invite = await t.request.post(`/api/v1/workspaces/${ws.id}/invites`).set(root.auth).send({ email: revoked, role: 'member' }).expect(201);
      await t.request.delete(`/api/v1/workspaces/${ws.id}/invites/${invite.body.id}`).set(root.auth).expect(200);
      assertProblem(await signUpAs(t, revoked), 403, 'sign_up_invite_only');
    });

    it('answers 409 email_taken for an address that has an account, as an open instance does', async () => {
      assertProblem(await signUpAs(t, ADMIN.email), 409, 'email_taken');
    });
  });

  describe('sign-up rate limit per IP address', () => {
    let t: TestKernel;
    before(async () => {
      t = await startTestKernel({ config: { http: { trustProxy: true }, plugins: { auth: { options: { signUpRateLimit: { maxPerIp: 2, windowMinutes: 60 } } } } } });
    });
    after(() => t.stop());

    it('counts every attempt (a 409 too) and answers 429 rate_limited with Retry-After past the limit; other addresses are not affected', async () => {
      const taken = newEmail('taken');
      await signUpAs(t, taken, '10.2.0.1').expect(201);
      assertProblem(await signUpAs(t, taken, '10.2.0.1'), 409, 'email_taken');
      const before = await userCount(t);
      const limited = await signUpAs(t, newEmail('third'), '10.2.0.1');
      assertProblem(limited, 429, 'rate_limited');
      const retryAfter = Number(limited.headers['retry-after']);
      assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 3600, `Retry-After ${limited.headers['retry-after']}`);
      assert.equal(await userCount(t), before);
      await signUpAs(t, newEmail('elsewhere'), '10.2.0.2').expect(201);
    });

    it('lets the address sign up again once its window has passed', async () => {
      const ip = '10.2.0.3';
      await signUpAs(t, newEmail('a'), ip).expect(201);
      await signUpAs(t, newEmail('b'), ip).expect(201);
      assert.equal((await signUpAs(t, newEmail('c'), ip)).status, 429);
      await t.db('auth_rate_counters').update({ window_ends: t.db.raw("now() - interval '1 second'") });
      await signUpAs(t, newEmail('d'), ip).expect(201);
    });
  });
});

describe('auth: the instance admin from ADMIN_EMAIL and ADMIN_PASSWORD', () => {
  it('reads ADMIN_EMAIL and ADMIN_PASSWORD from the environment into the auth options', () => {
    const config = loadConfig({ env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password }, input: {} });
    assert.deepEqual(config.plugins.auth?.options?.admin, ADMIN);
  });

  it('creates the admin at start; the first sign-up is then an ordinary user; a restart creates nothing', async () => {
    const storage = newTestStorage();
    const config = { plugins: { auth: { options: { admin: ADMIN } } } };
    const t = await startTestKernel({ config, storage });
    try {
      const row = await t.db('users').whereRaw('lower(email) = lower(?)', [ADMIN.email]).first();
      assert.equal(row.is_instance_admin, true);
      assert.equal(await verify(row.password_hash, ADMIN.password), true);
      const first = await signUpAs(t, newEmail('first')).expect(201);
      assert.equal((await t.db('users').where({ id: first.body.user.id }).first()).is_instance_admin, false);
    } finally {
      await t.stop({ keep: true });
    }
    const again = await startTestKernel({ config, storage });
    try {
      assert.equal(await userCount(again), 2);
    } finally {
      await again.stop();
    }
  });

  it('leaves an existing account with that email as it is (no promotion, password unchanged) and says so', async () => {
    const storage = newTestStorage();
    const first = await startTestKernel({ storage });
    let userId: string;
    try {
      await signUpAs(first, newEmail('owner')).expect(201);
      const res = await signUpAs(first, ADMIN.email).expect(201);
      userId = res.body.user.id;
    } finally {
      await first.stop({ keep: true });
    }
    const logs = captureLogs('warn');
    const t = await startTestKernel({ storage, logger: logs.logger, config: { plugins: { auth: { options: { admin: ADMIN } } } } });
    try {
      const row = await t.db('users').where({ id: userId }).first();
      assert.equal(row.is_instance_admin, false);
      assert.equal(await verify(row.password_hash, PASSWORD), true);
      assert.ok(logs.lines.some((l) => /ADMIN_EMAIL names an existing account/.test(l.msg)), JSON.stringify(logs.lines));
    } finally {
      await t.stop();
    }
  });

  it('warns while an open instance has no account and listens beyond loopback, and not otherwise', async () => {
    const warning = (lines: Array<Record<string, any>>) => lines.some((l) => l.level === 40 && /first sign-up will become instance admin/.test(l.msg));
    const exposed = captureLogs('warn');
    const a = await startTestKernel({ logger: exposed.logger, config: { host: '0.0.0.0' } });
    await a.stop();
    assert.ok(warning(exposed.lines), 'an empty open instance on 0.0.0.0 warns');

    const loopback = captureLogs('warn');
    const b = await startTestKernel({ logger: loopback.logger, config: { host: '127.0.0.1' } });
    await b.stop();
    assert.ok(!warning(loopback.lines), 'loopback only: no warning');

    const bootstrapped = captureLogs('warn');
    const c = await startTestKernel({ logger: bootstrapped.logger, config: { host: '0.0.0.0', plugins: { auth: { options: { admin: ADMIN } } } } });
    await c.stop();
    assert.ok(!warning(bootstrapped.lines), 'an admin exists: no warning');
  });
});
