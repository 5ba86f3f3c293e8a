import assert from 'node:assert/strict';
import type { Response } from 'supertest';
import { startTestKernel, type TestKernel, signUp, type SignedUpUser } from '../../core/testing.ts';
import { builtinPlugins } from '../../plugins/index.ts';
import { EXPLODING_TOKEN, LEAKY_MESSAGE, httpProbePlugin } from '../fixtures/http-probe.ts';
import { captureLogs } from '../fixtures/log-capture.ts';
import { chunkedPost } from '../fixtures/raw-http.ts';
import { hashSecret } from '../../core/secrets.ts';

const ORIGIN = 'https://app.example.test';
const JSON_LIMIT = 2048;

/** The RFC 9457 shape every error shares, with nothing of the server's internals in it. */
function assertProblem(res: { status: number; headers: Record<string, any>; body: any; text: string }, status: number, code: string) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.headers['content-type'], 'application/problem+json');
  const { type, title, detail, request_id, ...rest } = res.body;
  assert.equal(type, `urn:tessera:problem:${code}`);
  assert.equal(typeof title, 'string');
  assert.ok(title.length > 0);
  assert.equal(res.body.status, status);
  assert.equal(typeof detail, 'string');
  assert.equal(res.body.code, code);
  assert.equal(request_id, res.headers['x-request-id']);
  for (const key of Object.keys(rest)) assert.ok(['status', 'code', 'errors'].includes(key), `unexpected member "${key}"`);
  assert.doesNotMatch(res.text, /\bat .+:\d+:\d+|node_modules|\.ts\b|stack/i, 'no stack trace or file names');
}

describe('HTTP edge: problem+json, request ids, CORS', () => {
  let t: TestKernel;
  let admin: SignedUpUser;
  let member: SignedUpUser;
  const logs = captureLogs('error');

  before(async () => {
    t = await startTestKernel({
      plugins: [...builtinPlugins, httpProbePlugin()],
      config: { http: { jsonLimit: JSON_LIMIT, cors: { origins: [ORIGIN], credentials: false }, trustProxy: false } },
      logger: logs.logger,
    });
    admin = await signUp(t); // the first account of an instance is its admin
    member = await signUp(t);
  });
  after(() => t.stop());

  describe('problem+json for every error', () => {
    it('400 malformed_json for a body that is not JSON', async () => {
      const res = await t.request.post('/api/v1/http-probe/echo').set('Content-Type', 'application/json').send('{"name": ');
      assertProblem(res, 400, 'malformed_json');
    });

    it('401 unauthenticated, with WWW-Authenticate, for no credential, an unknown one, or a non-bearer scheme', async () => {
      for (const header of [undefined, 'Bearer not-a-real-token', 'Basic dXNlcjpwYXNz']) {
        const req = t.request.get('/api/v1/me');
        const res = header ? await req.set('Authorization', header) : await req;
        assertProblem(res, 401, 'unauthenticated');
        assert.equal(res.headers['www-authenticate'], 'Bearer');
      }
    });

    it('403 forbidden for a signed-in user on an instance-admin route (the admin gets 200)', async () => {
      assertProblem(await t.request.get('/api/v1/http-probe/admin').set(member.auth), 403, 'forbidden');
      await t.request.get('/api/v1/http-probe/admin').set(admin.auth).expect(200, { ok: true });
    });

    it('404 not_found for an unknown route, inside and outside /api/v1', async () => {
      for (const path of ['/api/v1/no-such-thing', '/api/v1/health/extra', '/index.html', '/favicon.ico']) {
        assertProblem(await t.request.get(path), 404, 'not_found');
      }
      assertProblem(await t.request.delete('/api/v1/no-such-thing'), 404, 'not_found');
    });

    it('405 method_not_allowed with Allow for a known path and another method; OPTIONS lists the methods', async () => {
      const res = await t.request.put('/api/v1/health').send({});
      assertProblem(res, 405, 'method_not_allowed');
      assert.deepEqual(res.headers.allow.split(/,\s*/).sort(), ['GET', 'HEAD']);
      const options = await t.request.options('/api/v1/health').expect(200);
      assert.deepEqual(options.headers.allow.split(/,\s*/).sort(), ['GET', 'HEAD']);
    });

    it('413 payload_too_large for a JSON body over the limit, announced or chunked', async () => {
      const big = { name: 'x'.repeat(JSON_LIMIT * 2) };
      assertProblem(await t.request.post('/api/v1/http-probe/echo').send(big), 413, 'payload_too_large');

      const text = JSON.stringify(big);
      const chunks = [text.slice(0, 1000), text.slice(1000, 3000), text.slice(3000)];
      const res = await chunkedPost(`${t.url}/api/v1/http-probe/echo`, { 'Content-Type': 'application/json' }, chunks);
      assertProblem(res, 413, 'payload_too_large');
      // Just under the limit is fine.
      await t.request.post('/api/v1/http-probe/echo').send({ name: 'y'.repeat(JSON_LIMIT - 100) }).expect(200);
    });

    it('415 unsupported_media_type for a body that is not application/json', async () => {
      assertProblem(await t.request.post('/api/v1/http-probe/echo').set('Content-Type', 'text/plain').send('name=x'), 415, 'unsupported_media_type');
      assertProblem(await t.request.post('/api/v1/http-probe/echo').type('form').send({ name: 'x' }), 415, 'unsupported_media_type');
    });

    it('422 validation_failed with a pointer per problem: unknown property, wrong type, missing property, bad query', async () => {
      let res = await t.request.post('/api/v1/http-probe/echo').send({ name: 'ok', extra: 1 });
      assertProblem(res, 422, 'validation_failed');
      assert.deepEqual(res.body.errors, [{ pointer: '/extra', detail: 'Unknown property "extra".' }]);

      res = await t.request.post('/api/v1/http-probe/echo').send({ name: 5, count: 'two' });
      assertProblem(res, 422, 'validation_failed');
      assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer).sort(), ['/count', '/name']);
      for (const e of res.body.errors) assert.equal(typeof e.detail, 'string');

      res = await t.request.post('/api/v1/http-probe/echo').set('Content-Type', 'application/json').send('{}');
      assertProblem(res, 422, 'validation_failed');
      assert.deepEqual(res.body.errors, [{ pointer: '/name', detail: 'Property "name" is required.' }]);

      res = await t.request.get('/api/v1/http-probe/items?limit=abc');
      assertProblem(res, 422, 'validation_failed');
      assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/query/limit']);
      await t.request.get('/api/v1/http-probe/items?limit=20').expect(200, { limit: 20 });
    });

    it('500 internal_error from a throwing handler or hook tap, logged with the request id but never shown', async () => {
      for (const res of [
        await t.request.get('/api/v1/http-probe/boom'),
        await t.request.get('/api/v1/me').set('Authorization', `Bearer ${EXPLODING_TOKEN}`),
      ]) {
        assertProblem(res, 500, 'internal_error');
        assert.equal(res.body.detail, 'An unexpected error occurred.');
        assert.ok(!res.text.includes(LEAKY_MESSAGE) && !res.text.includes('hunter2') && !res.text.includes('10.0.0.7'), 'the error message stays on the server');
        const logged = logs.lines.find((l) => l.requestId === res.body.request_id);
        assert.ok(logged, 'the failure is logged under its request id');
        assert.equal(logged.level, 50);
        assert.ok(logged.err.message.includes(LEAKY_MESSAGE), logged.err.message);
      }
      assert.equal(logs.lines.at(-1)!.plugin, 'http-probe', "a hook tap's failure names its plugin");
    });
  });

  describe('a credential that cannot be used', () => {
    /** An unknown token, a session that has expired, one that was signed out, and a scheme that is not Bearer. */
    async function unusable(): Promise<Record<string, string>> {
      const expired = await signUp(t);
      await t.db('sessions').where({ token_hash: hashSecret(expired.token) }).update({ expires_at: t.db.raw("now() - interval '1 second'") });
      const signedOut = await signUp(t);
      await t.request.post('/api/v1/auth/sign-out').set(signedOut.auth).expect(204);
      return { unknown: 'Bearer tsr_not-a-real-token', expired: expired.auth.Authorization, 'signed out': signedOut.auth.Authorization, basic: 'Basic dXNlcjpwYXNz' };
    }

    it('is treated as absent by the routes that need no credential: a stale token does not stop a sign-in', async () => {
      const headers = await unusable();
      for (const [what, header] of Object.entries(headers)) {
        const as = (res: Response, status: number) => assert.equal(res.status, status, `${what}: → ${res.status} ${res.text}`);
        as(await t.request.get('/api/v1/health').set('Authorization', header), 200);
        as(await t.request.get('/api/v1/openapi.json').set('Authorization', header), 200);
        as(await t.request.get('/api/v1/templates').set('Authorization', header), 200);
        as(await t.request.get('/api/v1/public/gallery').set('Authorization', header), 200);
        as(await t.request.get('/api/v1/auth/providers').set('Authorization', header), 200);
        const signIn = await t.request.post('/api/v1/auth/sign-in').set('Authorization', header).send({ email: member.email, password: 'correct horse battery' });
        as(signIn, 200);
        await t.request.get('/api/v1/me').set('Authorization', `Bearer ${signIn.body.token}`).expect(200);
        const email = `fresh-${Date.now()}-${what.replace(/ /g, '-')}@example.test`;
        as(await t.request.post('/api/v1/auth/sign-up').set('Authorization', header).send({ email, password: 'correct horse battery', name: 'Fresh' }), 201);
        as(await t.request.post('/api/v1/auth/password-reset').set('Authorization', header).send({ email }), 202);
        // Unknown public tokens are unknown (404), not a matter of the caller's credential.
        as(await t.request.get(`/api/v1/public/forms/${'x'.repeat(43)}`).set('Authorization', header), 404);
        as(await t.request.get(`/api/v1/files/signed/${'x'.repeat(43)}`).set('Authorization', header), 404);
      }
    });

    it('is still 401 on a route that needs one, saying why', async () => {
      const headers = await unusable();
      for (const header of [headers.unknown, headers.expired, headers['signed out']]) {
        const res = await t.request.get('/api/v1/me').set('Authorization', header);
        assertProblem(res, 401, 'unauthenticated');
        assert.equal(res.body.detail, 'The bearer token is invalid, expired or revoked.');
      }
      const res = await t.request.get('/api/v1/me').set('Authorization', headers.basic);
      assertProblem(res, 401, 'unauthenticated');
      assert.equal(res.body.detail, 'The Authorization header must be "Bearer <token>".');
    });
  });

  describe('X-Request-Id', () => {
    it('is on every response, fresh per request', async () => {
      const responses: Response[] = [
        await t.request.get('/api/v1/health'),
        await t.request.get('/api/v1/me'),
        await t.request.get('/api/v1/nope'),
        await t.request.get('/api/v1/http-probe/boom'),
        await t.request.post('/api/v1/http-probe/echo').send({ name: 'a' }),
        await t.request.options('/api/v1/health').set('Origin', ORIGIN).set('Access-Control-Request-Method', 'POST'),
      ];
      const ids = responses.map((r) => r.headers['x-request-id']);
      for (const id of ids) assert.match(id, /^[0-9a-f-]{36}$/);
      assert.equal(new Set(ids).size, ids.length);
    });

    it('echoes a well-formed incoming id (in the header and in problems) and replaces a malformed one', async () => {
      const mine = 'lb-7f3a.2024:req_01';
      await t.request.get('/api/v1/health').set('X-Request-Id', mine).expect('X-Request-Id', mine);
      const problem = await t.request.get('/api/v1/nope').set('X-Request-Id', mine);
      assert.equal(problem.body.request_id, mine);

      for (const bad of ['has space', 'x'.repeat(129), '<script>']) {
        const res = await t.request.get('/api/v1/health').set('X-Request-Id', bad);
        assert.match(res.headers['x-request-id'], /^[0-9a-f-]{36}$/);
      }
    });
  });

  describe('request scope', () => {
    it('gives each request its own scoped services (with its request id and principal) and shares singletons', async () => {
      const first = await t.request.get('/api/v1/http-probe/scope').expect(200);
      const second = await t.request.get('/api/v1/http-probe/scope').set(member.auth).expect(200);
      assert.deepEqual(first.body, { requestId: first.headers['x-request-id'], principal: 'anonymous', hits: 1 });
      assert.deepEqual(second.body, { requestId: second.headers['x-request-id'], principal: 'session', hits: 2 });
    });
  });

  describe('CORS (http.cors.origins configured)', () => {
    it('allows a listed origin on success and on error responses, exposing X-Request-Id', async () => {
      for (const res of [await t.request.get('/api/v1/health').set('Origin', ORIGIN), await t.request.get('/api/v1/me').set('Origin', ORIGIN)]) {
        assert.equal(res.headers['access-control-allow-origin'], ORIGIN);
        assert.match(res.headers.vary, /Origin/);
        assert.match(res.headers['access-control-expose-headers'], /X-Request-Id/);
        assert.equal(res.headers['access-control-allow-credentials'], undefined);
      }
    });

    it('answers a preflight from a listed origin with 204 and the allowed methods and headers', async () => {
      const res = await t.request
        .options('/api/v1/http-probe/echo')
        .set('Origin', ORIGIN)
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization, content-type')
        .expect(204);
      assert.equal(res.headers['access-control-allow-origin'], ORIGIN);
      assert.match(res.headers['access-control-allow-methods'], /POST/);
      assert.equal(res.headers['access-control-allow-headers'], 'authorization, content-type');
      assert.ok(Number(res.headers['access-control-max-age']) > 0);
    });

    it('gives an unlisted origin no CORS headers', async () => {
      const res = await t.request.get('/api/v1/health').set('Origin', 'https://evil.example.test').expect(200);
      assert.equal(res.headers['access-control-allow-origin'], undefined);
      const pre = await t.request.options('/api/v1/health').set('Origin', 'https://evil.example.test').set('Access-Control-Request-Method', 'GET');
      assert.equal(pre.headers['access-control-allow-origin'], undefined);
    });
  });
});
