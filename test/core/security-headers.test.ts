import assert from 'node:assert/strict';
import { loadConfig, type ConfigInput } from '../../core/config.ts';
import { StartupError } from '../../core/errors.ts';
import { startTestKernel, type TestKernel, createWorkspace, signUp, type SignedUpUser } from '../../core/testing.ts';
import { PNG } from '../plugins/users/images.ts';

function assertSecurityHeaders(res: { headers: Record<string, string> }, csp: RegExp = /^default-src 'none'; frame-ancestors 'none'$/) {
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
  assert.equal(res.headers['x-frame-options'], 'DENY');
  assert.equal(res.headers['referrer-policy'], 'no-referrer');
  assert.match(res.headers['content-security-policy'], csp);
}

describe('security headers, no-store on secrets, CORS refused with credentials for any origin', () => {
  let t: TestKernel;
  let ada: SignedUpUser;

  before(async () => {
    t = await startTestKernel({ config: { http: { cors: { origins: ['*'], credentials: false } } } });
    ada = await signUp(t);
  });
  after(() => t.stop());

  it('sends them on JSON answers and on problems', async () => {
    assertSecurityHeaders(await t.request.get('/api/v1/me').set(ada.auth).expect(200));
    assertSecurityHeaders(await t.request.get('/api/v1/workspaces/00000000-0000-4000-8000-000000000000').set(ada.auth).expect(404));
    assertSecurityHeaders(await t.request.get('/api/v1/me').expect(401));
  });

  it('serves an avatar as the image it is, never sniffed into a page', async () => {
    await t.request.put('/api/v1/me/avatar').set(ada.auth).attach('file', PNG, { filename: 'a.png', contentType: 'image/png' }).expect(200);
    const res = await t.request.get(`/api/v1/users/${ada.id}/avatar`).set(ada.auth).buffer(true).expect(200);
    assert.equal(res.headers['content-type'], 'image/png');
    assertSecurityHeaders(res);
  });

  it('lets the reference page load its own scripts only, with no inline script', async () => {
    const page = await t.request.get('/api/v1/docs').expect(200);
    assertSecurityHeaders(page, /script-src 'self';.*frame-ancestors 'none'/);
    assert.doesNotMatch(page.text, /<script>/);
    const script = await t.request.get('/api/v1/docs/assets/tessera-docs.js').expect(200);
    assert.match(script.text, /deepLinking: true, filter: true/);
  });

  it('marks answers that show a secret no-store, and only those', async () => {
    const email = `nostore-${Date.now()}@example.test`;
    const up = await t.request.post('/api/v1/auth/sign-up').send({ email, name: 'N', password: 'correct horse battery' }).expect(201);
    assert.equal(up.headers['cache-control'], 'no-store');
    const inRes = await t.request.post('/api/v1/auth/sign-in').send({ email, password: 'correct horse battery' }).expect(200);
    assert.equal(inRes.headers['cache-control'], 'no-store');
    const ws = await createWorkspace(t, ada);
    const token = await t.request.post('/api/v1/me/tokens').set(ada.auth).send({ name: 'ci', workspace_id: ws.id }).expect(201);
    assert.equal(token.headers['cache-control'], 'no-store');
    const invite = await t.request.post(`/api/v1/workspaces/${ws.id}/invites`).set(ada.auth).send({ email: `inv-${Date.now()}@example.test`, role: 'member' }).expect(201);
    assert.equal(invite.headers['cache-control'], 'no-store');
    const me = await t.request.get('/api/v1/me').set(ada.auth).expect(200);
    assert.equal(me.headers['cache-control'], undefined);
  });

  it('never reflects the origin "null"', async () => {
    const res = await t.request.get('/api/v1/health').set('Origin', 'null').expect(200);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
  });

  it('refuses at start-up credentials allowed for any origin, naming the key', () => {
    assert.throws(
      () => loadConfig({ env: {}, input: { http: { cors: { origins: ['*'], credentials: true } } } as ConfigInput }),
      (err: unknown) => err instanceof StartupError && err.code === 'config_invalid' && /"\/http\/cors\/credentials"/.test(err.message),
    );
    assert.doesNotThrow(() => loadConfig({ env: {}, input: { http: { cors: { origins: ['https://app.example.test'], credentials: true } } } as ConfigInput }));
  });
});
