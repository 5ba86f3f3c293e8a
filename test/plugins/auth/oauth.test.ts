import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startTestKernel, type TestKernel, signUp } from '../../../core/testing.ts';
import { loadConfig } from '../../../core/config.ts';
import { Kernel } from '../../../core/kernel.ts';
import { hashSecret } from '../../../core/secrets.ts';
import { builtinPlugins } from '../../../plugins/index.ts';
import { FakeOAuthServer, type FakeAccount } from './fake-oauth-server.ts';

let accountId = 1000;
function account(email: string, extra: Partial<FakeAccount> = {}): FakeAccount {
  const id = accountId++;
  return { id, login: `octo${id}`, name: `Octo ${id}`, emails: [{ email, primary: true, verified: true }], ...extra };
}

describe('auth: OAuth sign-in', () => {
  let t: TestKernel;
  let fake: FakeOAuthServer;

  before(async () => {
    fake = await new FakeOAuthServer().start();
    t = await startTestKernel({
      config: {
        plugins: {
          auth: {
            options: {
              oauth: {
                github: fake.options(),
                acme: fake.options({ name: 'Acme SSO', userInfoUrl: `${fake.url}/oidc/userinfo`, scopes: ['openid', 'email'] }),
              },
            },
          },
        },
      },
    });
  });
  after(async () => {
    await t?.stop();
    await fake?.stop();
  });

  /** What a browser does: start here, let the provider approve `fake.account`, follow it back to the callback. */
  async function browserSignIn(provider = 'github') {
    const start = await t.request.get(`/api/v1/auth/oauth/${provider}/start`).expect(302);
    const approval = await fetch(start.headers.location, { redirect: 'manual' });
    assert.equal(approval.status, 302, 'the fake provider accepted the authorize request');
    const back = new URL(approval.headers.get('location')!);
    return { start, callbackPath: back.pathname + back.search, res: await t.request.get(back.pathname + back.search) };
  }

  const userCount = async () => Number((await t.db('users').count({ n: '*' }).first())!.n);

  it('lists password and each configured provider', async () => {
    const res = await t.request.get('/api/v1/auth/providers').expect(200);
    assert.deepEqual(res.body, {
      data: [
        { id: 'password', type: 'password', name: 'Email and password' },
        { id: 'github', type: 'oauth', name: 'GitHub', start_url: '/api/v1/auth/oauth/github/start' },
        { id: 'acme', type: 'oauth', name: 'Acme SSO', start_url: '/api/v1/auth/oauth/acme/start' },
      ],
      next_cursor: null,
    });
  });

  it('start redirects to the authorize URL with client_id, redirect_uri, scope, state and a PKCE S256 challenge; the state is stored hashed', async () => {
    const res = await t.request.get('/api/v1/auth/oauth/github/start').expect(302);
    const location = new URL(res.headers.location);
    assert.equal(`${location.origin}${location.pathname}`, `${fake.url}/login/oauth/authorize`);
    const q = Object.fromEntries(location.searchParams);
    assert.equal(q.client_id, fake.clientId);
    assert.equal(q.response_type, 'code');
    assert.equal(q.redirect_uri, `${t.url}/api/v1/auth/oauth/github/callback`);
    assert.equal(q.scope, 'read:user user:email');
    assert.equal(q.code_challenge_method, 'S256');
    assert.match(q.code_challenge, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(q.state.length >= 22, 'state carries at least 128 bits');
    assert.equal(res.headers['cache-control'], 'no-store');

    const row = await t.db('auth_oauth_states').where({ state_hash: hashSecret(q.state) }).first();
    assert.ok(row, 'the state is stored as its hash');
    assert.ok(!Object.values(row).includes(q.state), 'the plaintext state is stored nowhere');
    assert.equal(createHash('sha256').update(row.code_verifier).digest('base64url'), q.code_challenge);
    const ttl = new Date(row.expires_at).getTime() - Date.now();
    assert.ok(ttl > 5 * 60_000 && ttl <= 10 * 60_000, `state expires in ${ttl} ms`);
  });

  it('signs up a new user end to end with the primary verified email, links the identity and issues a working session', async () => {
    fake.account = account('new.octo@example.test', {
      emails: [
        { email: 'unverified@example.test', primary: false, verified: false },
        { email: 'new.octo@example.test', primary: true, verified: true },
      ],
    });
    const usersBefore = await userCount();
    const { start, res } = await browserSignIn();
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body).sort(), ['expires_at', 'token', 'user']);
    assert.equal(res.body.user.email, 'new.octo@example.test');
    assert.equal(res.body.user.name, fake.account.name);
    assert.match(res.body.token, /^tss_/);
    assert.equal(res.headers['cache-control'], 'no-store');
    const me = await t.request.get('/api/v1/me').set('Authorization', `Bearer ${res.body.token}`).expect(200);
    assert.equal(me.body.id, res.body.user.id);

    assert.equal(await userCount(), usersBefore + 1);
    const user = await t.db('users').where({ id: res.body.user.id }).first();
    assert.equal(user.password_hash, null, 'an OAuth account has no password');
    const links = await t.db('auth_identities').where({ user_id: user.id }).select('provider', 'subject');
    assert.deepEqual(links, [{ provider: 'github', subject: String(fake.account.id) }]);
    // The code was exchanged the way GitHub requires, with the PKCE verifier, and the state is used up.
    const exchange = fake.tokenRequests.at(-1)!;
    assert.equal(exchange.accept, 'application/json');
    assert.equal(exchange.form.grant_type, 'authorization_code');
    assert.equal(exchange.form.redirect_uri, `${t.url}/api/v1/auth/oauth/github/callback`);
    const state = new URL(start.headers.location).searchParams.get('state')!;
    assert.equal(await t.db('auth_oauth_states').where({ state_hash: hashSecret(state) }).first(), undefined);
  });

  it('signs the same provider account into the same user, even after its email changed there', async () => {
    fake.account = account('first.address@example.test');
    const first = (await browserSignIn()).res;
    assert.equal(first.status, 200);
    const usersBefore = await userCount();
    fake.account = { ...fake.account, emails: [{ email: 'moved@example.test', primary: true, verified: true }] };
    const again = (await browserSignIn()).res;
    assert.equal(again.status, 200);
    assert.equal(again.body.user.id, first.body.user.id);
    assert.equal(await userCount(), usersBefore);
  });

  it('links a provider account to the existing user with the same verified email (any case)', async () => {
    const existing = await signUp(t);
    fake.account = account(existing.email.toUpperCase());
    const { res } = await browserSignIn();
    assert.equal(res.status, 200);
    assert.equal(res.body.user.id, existing.id);
    assert.equal((await t.db('auth_identities').where({ user_id: existing.id, provider: 'github' })).length, 1);
  });

  it('refuses a provider account without a verified email with 403 and creates nothing', async () => {
    fake.account = account('unverified.only@example.test', { emails: [{ email: 'unverified.only@example.test', primary: true, verified: false }] });
    const usersBefore = await userCount();
    const { res } = await browserSignIn();
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'forbidden');
    assert.equal(await userCount(), usersBefore);
    assert.equal(await t.db('auth_identities').where({ subject: String(fake.account.id) }).first(), undefined);
  });

  it('answers 422 (pointer /query/state) to an unknown, replayed or expired state', async () => {
    const unknown = await t.request.get('/api/v1/auth/oauth/github/callback').query({ code: 'abc', state: 'not-a-state-we-issued' });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.headers['content-type'], 'application/problem+json');
    assert.deepEqual(unknown.body.errors.map((e: { pointer: string }) => e.pointer), ['/query/state']);

    fake.account = account('replay@example.test');
    const { callbackPath, res } = await browserSignIn();
    assert.equal(res.status, 200);
    const replay = await t.request.get(callbackPath);
    assert.equal(replay.status, 422);
    assert.equal(replay.body.token, undefined);

    const start = await t.request.get('/api/v1/auth/oauth/github/start').expect(302);
    const state = new URL(start.headers.location).searchParams.get('state')!;
    await t.db('auth_oauth_states').where({ state_hash: hashSecret(state) }).update({ expires_at: t.db.raw("now() - interval '1 second'") });
    const approval = await fetch(start.headers.location, { redirect: 'manual' });
    const back = new URL(approval.headers.get('location')!);
    assert.equal((await t.request.get(back.pathname + back.search)).status, 422);
  });

  it('does not accept a state issued for another provider', async () => {
    const start = await t.request.get('/api/v1/auth/oauth/acme/start').expect(302);
    const state = new URL(start.headers.location).searchParams.get('state')!;
    const res = await t.request.get('/api/v1/auth/oauth/github/callback').query({ code: 'abc', state });
    assert.equal(res.status, 422);
  });

  it('answers 502 provider_error when the provider refuses the code or fails', async () => {
    const start = await t.request.get('/api/v1/auth/oauth/github/start').expect(302);
    const state = new URL(start.headers.location).searchParams.get('state')!;
    const badCode = await t.request.get('/api/v1/auth/oauth/github/callback').query({ code: 'forged-code', state });
    assert.equal(badCode.status, 502);
    assert.equal(badCode.headers['content-type'], 'application/problem+json');
    assert.equal(badCode.body.code, 'provider_error');
    assert.match(badCode.body.detail, /bad_verification_code/);

    fake.account = account('down@example.test');
    fake.userStatus = 500;
    try {
      const usersBefore = await userCount();
      const { res } = await browserSignIn();
      assert.equal(res.status, 502);
      assert.equal(res.body.code, 'provider_error');
      assert.equal(await userCount(), usersBefore);
    } finally {
      fake.userStatus = null;
    }
  });

  it('answers 401 when the provider reports that the user declined, and uses the state up', async () => {
    const start = await t.request.get('/api/v1/auth/oauth/github/start').expect(302);
    const state = new URL(start.headers.location).searchParams.get('state')!;
    const res = await t.request.get('/api/v1/auth/oauth/github/callback').query({ error: 'access_denied', state });
    assert.equal(res.status, 401);
    assert.match(res.body.detail, /access_denied/);
    assert.equal(await t.db('auth_oauth_states').where({ state_hash: hashSecret(state) }).first(), undefined);
  });

  it('answers 401 to a disabled user and signs nobody in', async () => {
    fake.account = account('disabled.octo@example.test');
    const first = (await browserSignIn()).res;
    assert.equal(first.status, 200);
    await t.db('users').where({ id: first.body.user.id }).update({ disabled_at: t.db.fn.now() });
    const sessionsBefore = (await t.db('sessions').where({ user_id: first.body.user.id })).length;
    const { res } = await browserSignIn();
    assert.equal(res.status, 401);
    assert.equal(res.body.code, 'unauthenticated');
    assert.equal((await t.db('sessions').where({ user_id: first.body.user.id })).length, sessionsBefore);
  });

  it('answers 404 for a provider that is not configured', async () => {
    assert.equal((await t.request.get('/api/v1/auth/oauth/gitlab/start')).status, 404);
    assert.equal((await t.request.get('/api/v1/auth/oauth/gitlab/callback').query({ code: 'a', state: 'b' })).status, 404);
  });

  it('signs in through a custom provider that speaks OpenID Connect userinfo', async () => {
    fake.account = account('oidc.user@example.test');
    const { start, res } = await browserSignIn('acme');
    assert.equal(new URL(start.headers.location).searchParams.get('scope'), 'openid email');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.user.email, 'oidc.user@example.test');
    const link = await t.db('auth_identities').where({ user_id: res.body.user.id }).first();
    assert.deepEqual([link.provider, link.subject], ['acme', `oidc-${fake.account.id}`]);
  });
});

describe('auth: OAuth configuration', () => {
  const start = (options: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    Kernel.start({
      config: loadConfig({ env: {}, input: { logLevel: 'silent', plugins: { auth: { options } }, ...extra } }),
      plugins: builtinPlugins,
      inMemory: true,
    });

  it('refuses to start when a custom provider lacks its URLs, naming the key', async () => {
    await assert.rejects(start({ oauth: { acme: { clientId: 'a', clientSecret: 'b' } } }), (err: Error) => {
      assert.match(err.message, /plugins\/auth\/options\/oauth\/acme/);
      assert.match(err.message, /authorizeUrl|tokenUrl|userInfoUrl/);
      return true;
    });
  });

  it('refuses to start when a preset lacks its client secret', async () => {
    await assert.rejects(start({ oauth: { github: { clientId: 'a' } } }), /oauth\/github\/clientSecret/);
  });

  it('puts the callback under publicUrl when one is configured', async () => {
    const t = await startTestKernel({
      config: {
        publicUrl: 'https://tessera.example.com/base/',
        plugins: { auth: { options: { oauth: { google: { clientId: 'g-id', clientSecret: 'g-secret' } } } } },
      },
    });
    try {
      const res = await t.request.get('/api/v1/auth/oauth/google/start').expect(302);
      const location = new URL(res.headers.location);
      assert.equal(`${location.origin}${location.pathname}`, 'https://accounts.google.com/o/oauth2/v2/auth');
      assert.equal(location.searchParams.get('redirect_uri'), 'https://tessera.example.com/base/api/v1/auth/oauth/google/callback');
      assert.equal(location.searchParams.get('scope'), 'openid email profile');
    } finally {
      await t.stop();
    }
  });

  it('obeys the signUp policy for new accounts only: closed refuses a new address, an existing account still signs in', async () => {
    const fake = await new FakeOAuthServer().start();
    const t = await startTestKernel({
      config: { plugins: { auth: { options: { signUp: 'closed', admin: { email: 'root@example.test', password: 'root password 42' }, oauth: { github: fake.options() } } } } },
    });
    try {
      const users = async () => Number((await t.db('users').count({ n: '*' }).first())!.n);
      const viaProvider = async () => {
        const start = await t.request.get('/api/v1/auth/oauth/github/start').expect(302);
        const approval = await fetch(start.headers.location, { redirect: 'manual' });
        const back = new URL(approval.headers.get('location')!);
        return t.request.get(back.pathname + back.search);
      };
      fake.account = account('stranger@example.test');
      const refused = await viaProvider();
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 'sign_up_closed');
      assert.equal(await users(), 1);
      assert.equal(await t.db('auth_identities').first(), undefined);

      fake.account = account('root@example.test');
      assert.equal((await viaProvider()).status, 200);
    } finally {
      await t.stop();
      await fake.stop();
    }
  });
});
