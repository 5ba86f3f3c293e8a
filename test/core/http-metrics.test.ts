import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, signUp, type SignedUpUser } from '../../core/testing.ts';
import { loadConfig } from '../../core/config.ts';
import { StartupError } from '../../core/errors.ts';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

describe('GET /api/v1/metrics', () => {
  describe('with the default configuration', () => {
    let t: TestKernel;
    before(async () => {
      t = await startTestKernel();
    });
    after(() => t.stop());

    it('does not exist (404), and no CORS headers are sent', async () => {
      const res = await t.request.get('/api/v1/metrics').set('Origin', 'https://app.example.test').expect(404);
      assert.equal(res.body.code, 'not_found');
      assert.equal(res.headers['access-control-allow-origin'], undefined);
      const doc = await t.request.get('/api/v1/openapi.json').expect(200);
      assert.ok(!('/metrics' in doc.body.paths), 'not documented either');
    });
  });

  describe('when enabled', () => {
    let t: TestKernel;
    let admin: SignedUpUser;
    let member: SignedUpUser;
    before(async () => {
      t = await startTestKernel({ config: { metrics: { enabled: true, token: METRICS_TOKEN } } });
      admin = await signUp(t);
      member = await signUp(t);
    });
    after(() => t.stop());

    it('refuses anonymous callers and unknown tokens with 401', async () => {
      for (const res of [await t.request.get('/api/v1/metrics'), await t.request.get('/api/v1/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}x`)]) {
        assert.equal(res.status, 401);
        assert.equal(res.headers['content-type'], 'application/problem+json');
        assert.equal(res.body.code, 'unauthenticated');
      }
    });

    it('refuses a signed-in user who is not an instance admin with 403', async () => {
      const res = await t.request.get('/api/v1/metrics').set(member.auth).expect(403);
      assert.equal(res.body.code, 'forbidden');
    });

    it('serves Prometheus text to an instance admin session and to the metrics token', async () => {
      await t.request.get('/api/v1/health').expect(200);
      await t.request.get('/api/v1/no-such/route-123').expect(404);
      for (const auth of [admin.auth, { Authorization: `Bearer ${METRICS_TOKEN}` }]) {
        const res = await t.request.get('/api/v1/metrics').set(auth).expect(200);
        assert.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/);
        assert.match(res.text, /^tessera_http_requests_total\{method="GET",route="\/api\/v1\/health",status="200"\} [1-9]/m);
        assert.match(res.text, /^tessera_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/v1\/health"\} \d+/m);
        assert.match(res.text, /^tessera_process_cpu_user_seconds_total \d/m, 'process metrics');
        // Unknown paths share one label, so a scanner cannot blow up the series count.
        assert.match(res.text, /route="unmatched",status="404"/);
        assert.ok(!res.text.includes('route-123'));
      }
    });

    it('gives the metrics token no user rights', async () => {
      const res = await t.request.get('/api/v1/me').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(403);
      assert.equal(res.body.code, 'forbidden');
    });
  });

  it('rejects a metrics token shorter than 16 characters at start-up, naming the key', () => {
    assert.throws(
      () => loadConfig({ env: {}, input: { metrics: { enabled: true, token: 'too-short' } } }),
      (err: unknown) => err instanceof StartupError && err.code === 'config_invalid' && err.message.includes('/metrics/token'),
    );
    assert.throws(
      () => loadConfig({ env: { METRICS_TOKEN: 'short' }, input: {} }),
      (err: unknown) => err instanceof StartupError && err.message.includes('/metrics/token'),
    );
  });
});
