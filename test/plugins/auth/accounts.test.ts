import assert from 'node:assert/strict';
import { hash, verify } from '@node-rs/argon2';
import { startTestKernel, type TestKernel, signUp } from '../../../core/testing.ts';
import { hashSecret } from '../../../core/secrets.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PASSWORD = 'correct horse battery';

function assertProblem(res: { status: number; headers: Record<string, string>; body: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.headers['content-type'], 'application/problem+json');
  assert.equal(res.body.status, status);
  assert.equal(res.body.code, code);
  assert.ok(res.body.request_id);
}

describe('auth: accounts and sessions', () => {
  let t: TestKernel;
  const userCount = async () => Number((await t.db('users').count({ n: '*' }).first())!.n);

  before(async () => {
    t = await startTestKernel({ config: { plugins: { auth: { options: { sessionTtlHours: 2 } } } } });
  });
  after(() => t.stop());

  describe('sign-up', () => {
    it('answers 201 { user, token, expires_at }; the first user is instance admin, the second is not', async () => {
      const first = await t.request.post('/api/v1/auth/sign-up').send({ email: 'First@Example.test', password: PASSWORD, name: '  Ada  ' }).expect(201);
      assert.deepEqual(Object.keys(first.body).sort(), ['expires_at', 'token', 'user']);
      assert.deepEqual(Object.keys(first.body.user).sort(), ['avatar_url', 'created_at', 'email', 'id', 'name']);
      assert.match(first.body.user.id, UUID);
      assert.equal(first.body.user.email, 'First@Example.test');
      assert.equal(first.body.user.name, 'Ada');
      assert.equal(first.body.user.avatar_url, null);
      assert.match(first.body.token, /^tss_/);
      const ttl = Date.parse(first.body.expires_at) - Date.now();
      assert.ok(ttl > 2 * 3600_000 - 60_000 && ttl <= 2 * 3600_000, `sessionTtlHours: 2 gives expiry in ${ttl} ms`);

      const second = await signUp(t);
      const rows = await t.db('users').whereIn('id', [first.body.user.id, second.id]).select('id', 'is_instance_admin', 'password_hash');
      const byId = new Map(rows.map((r) => [r.id, r]));
      assert.equal(byId.get(first.body.user.id).is_instance_admin, true);
      assert.equal(byId.get(second.id).is_instance_admin, false);
      // Only an argon2 hash of the password and a hash of the token are stored.
      const stored = byId.get(first.body.user.id).password_hash;
      assert.match(stored, /^\$argon2id\$/);
      assert.equal(await verify(stored, PASSWORD), true);
      const session = await t.db('sessions').where({ user_id: first.body.user.id }).first();
      assert.equal(session.token_hash, hashSecret(first.body.token));
    });

    it('refuses a taken email in any case with 409 email_taken and stores nothing', async () => {
      const u = await signUp(t);
      const before = await userCount();
      const res = await t.request.post('/api/v1/auth/sign-up').send({ email: u.email.toUpperCase(), password: PASSWORD, name: 'Twin' });
      assertProblem(res, 409, 'email_taken');
      assert.equal(await userCount(), before);
    });

    it('validates email format, password length and name, with pointers', async () => {
      const res = await t.request.post('/api/v1/auth/sign-up').send({ email: 'not-an-email', password: 'short', name: '   ' });
      assertProblem(res, 422, 'validation_failed');
      assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer).sort(), ['/email', '/name', '/password']);
    });

    it('rejects unknown properties (no mass assignment of is_instance_admin) and stores nothing', async () => {
      const before = await userCount();
      const email = `sneaky${Date.now()}@example.test`;
      const res = await t.request.post('/api/v1/auth/sign-up').send({ email, password: PASSWORD, name: 'Sneaky', is_instance_admin: true });
      assertProblem(res, 422, 'validation_failed');
      assert.deepEqual(res.body.errors, [{ pointer: '/is_instance_admin', detail: 'Unknown property "is_instance_admin".' }]);
      assert.equal(await userCount(), before);
    });
  });

  describe('sign-in', () => {
    it('signs in with the right password (email in any case) and the new token works', async () => {
      const u = await signUp(t, { password: PASSWORD });
      const res = await t.request.post('/api/v1/auth/sign-in').send({ email: u.email.toUpperCase(), password: PASSWORD }).expect(200);
      assert.deepEqual(Object.keys(res.body).sort(), ['expires_at', 'token', 'user']);
      assert.equal(res.body.user.id, u.id);
      assert.notEqual(res.body.token, u.token);
      const me = await t.request.get('/api/v1/me').set('Authorization', `Bearer ${res.body.token}`).expect(200);
      assert.equal(me.body.id, u.id);
    });

    it('answers 401 problem+json to a wrong password and to an unknown email alike', async () => {
      const u = await signUp(t);
      const wrong = await t.request.post('/api/v1/auth/sign-in').send({ email: u.email, password: 'wrong password' });
      assertProblem(wrong, 401, 'unauthenticated');
      const unknown = await t.request.post('/api/v1/auth/sign-in').send({ email: `nobody${Date.now()}@example.test`, password: 'wrong password' });
      assertProblem(unknown, 401, 'unauthenticated');
      assert.equal(unknown.body.detail, wrong.body.detail);
      assert.equal(wrong.body.token, undefined);
    });
  });

  describe('sign-out', () => {
    it('revokes the session at once and leaves the user\'s other sessions alone', async () => {
      const u = await signUp(t, { password: PASSWORD });
      const other = await t.request.post('/api/v1/auth/sign-in').send({ email: u.email, password: PASSWORD }).expect(200);
      await t.request.post('/api/v1/auth/sign-out').set(u.auth).expect(204);
      assertProblem(await t.request.get('/api/v1/me').set(u.auth), 401, 'unauthenticated');
      assert.equal(await t.db('sessions').where({ token_hash: hashSecret(u.token) }).first(), undefined);
      await t.request.get('/api/v1/me').set('Authorization', `Bearer ${other.body.token}`).expect(200);
    });

    it('needs a session', async () => {
      assertProblem(await t.request.post('/api/v1/auth/sign-out'), 401, 'unauthenticated');
    });
  });

  describe('/me', () => {
    it('GET returns the current user and needs a credential', async () => {
      const u = await signUp(t, { name: 'Grace' });
      const res = await t.request.get('/api/v1/me').set(u.auth).expect(200);
      assert.deepEqual(Object.keys(res.body).sort(), ['avatar_url', 'created_at', 'email', 'id', 'name']);
      assert.equal(res.body.name, 'Grace');
      assert.equal(res.body.email, u.email);
      assertProblem(await t.request.get('/api/v1/me'), 401, 'unauthenticated');
    });

    it('PATCH changes the name and stores it', async () => {
      const u = await signUp(t);
      const res = await t.request.patch('/api/v1/me').set(u.auth).send({ name: 'Renamed' }).expect(200);
      assert.equal(res.body.name, 'Renamed');
      assert.equal((await t.db('users').where({ id: u.id }).first()).name, 'Renamed');
    });

    it('PATCH with an unknown property (email, is_instance_admin) is 422 and changes nothing', async () => {
      const u = await signUp(t, { name: 'Before' });
      const res = await t.request.patch('/api/v1/me').set(u.auth).send({ name: 'After', email: 'evil@example.test', is_instance_admin: true });
      assertProblem(res, 422, 'validation_failed');
      assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer).sort(), ['/email', '/is_instance_admin']);
      const row = await t.db('users').where({ id: u.id }).first();
      assert.deepEqual([row.name, row.email, row.is_instance_admin], ['Before', u.email, false]);
    });

    it('PATCH with an empty body or a blank name is 422', async () => {
      const u = await signUp(t);
      assertProblem(await t.request.patch('/api/v1/me').set(u.auth).send({}), 422, 'validation_failed');
      const blank = await t.request.patch('/api/v1/me').set(u.auth).send({ name: '  ' });
      assertProblem(blank, 422, 'validation_failed');
      assert.equal(blank.body.errors[0].pointer, '/name');
    });
  });

  describe('session expiry and disabled users', () => {
    it('an expired session is 401', async () => {
      const u = await signUp(t);
      await t.request.get('/api/v1/me').set(u.auth).expect(200);
      await t.db('sessions').where({ token_hash: hashSecret(u.token) }).update({ expires_at: t.db.raw("now() - interval '1 second'") });
      assertProblem(await t.request.get('/api/v1/me').set(u.auth), 401, 'unauthenticated');
    });

    it('a disabled user is 401 at once and cannot sign in, even with the right password', async () => {
      const u = await signUp(t, { password: PASSWORD });
      await t.request.get('/api/v1/me').set(u.auth).expect(200);
      await t.db('users').where({ id: u.id }).update({ disabled_at: t.db.fn.now() });
      assertProblem(await t.request.get('/api/v1/me').set(u.auth), 401, 'unauthenticated');
      const res = await t.request.post('/api/v1/auth/sign-in').send({ email: u.email, password: PASSWORD });
      assertProblem(res, 401, 'unauthenticated');
      assert.equal(await t.db('sessions').where({ user_id: u.id }).count({ n: '*' }).first().then((r) => Number(r!.n)), 1);
    });
  });

  describe('providers', () => {
    it('lists only the password provider when no OAuth provider is configured', async () => {
      const res = await t.request.get('/api/v1/auth/providers').expect(200);
      assert.deepEqual(res.body, { data: [{ id: 'password', type: 'password', name: 'Email and password' }], next_cursor: null });
    });

    it('answers 404 for the OAuth routes of an unconfigured provider', async () => {
      assertProblem(await t.request.get('/api/v1/auth/oauth/github/start'), 404, 'not_found');
      assertProblem(await t.request.get('/api/v1/auth/oauth/github/callback?code=x&state=y'), 404, 'not_found');
    });
  });
});

describe('auth: password hashing cost', () => {
  const costOf = async (t: TestKernel, id: string) =>
    ((await t.db('users').where({ id }).first('password_hash')).password_hash as string).match(/^\$argon2id\$v=19\$(m=\d+,t=\d+,p=\d+)\$/)?.[1];

  it("hashes at OWASP's Argon2id cost by default and signs in with a hash of another cost", async () => {
    // Test kernels hash at the lowest cost unless the test sets one: `{}` asks for the defaults.
    const t = await startTestKernel({ config: { plugins: { auth: { options: { passwordHashing: {} } } } } });
    try {
      const user = await signUp(t, { password: PASSWORD });
      assert.equal(await costOf(t, user.id), 'm=19456,t=2,p=1');
      const early = await signUp(t, { password: PASSWORD });
      await t.db('users').where({ id: early.id }).update({ password_hash: await hash(PASSWORD, { memoryCost: 1024, timeCost: 1 }) });
      assert.equal(await costOf(t, early.id), 'm=1024,t=1,p=1');
      for (const u of [user, early]) {
        await t.request.post('/api/v1/auth/sign-in').send({ email: u.email, password: PASSWORD }).expect(200);
        await t.request.post('/api/v1/auth/sign-in').send({ email: u.email, password: `${PASSWORD}!` }).expect(401);
      }
    } finally {
      await t.stop();
    }
  });
});
