import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestKernel, type TestKernel, signUp, type SignedUpUser } from '../../core/testing.ts';
import { captureLogs } from '../fixtures/log-capture.ts';

/** How many bytes an answer takes on the wire, read with Node's http client, which decodes nothing. */
function sizeOnTheWire(base: string, path: string, encoding: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get(`${base}${path}`, { headers: { 'accept-encoding': encoding } }, (res) => {
      let size = 0;
      res.on('data', (c: Buffer) => (size += c.length));
      res.on('end', () => resolve(size));
    }).on('error', reject);
  });
}

describe('HTTP operations: compression, the root, request logs', () => {
  let t: TestKernel;
  let ada: SignedUpUser;
  const logs = captureLogs('info');

  before(async () => {
    t = await startTestKernel({ logger: logs.logger });
    ada = await signUp(t);
  });
  after(() => t.stop());

  it('compresses large JSON with brotli or gzip as the client asks, and the docs assets too', async () => {
    const plain = await t.request.get('/api/v1/openapi.json').expect(200);
    for (const encoding of ['br', 'gzip']) {
      // supertest decodes both: the body read back is the document itself.
      const res = await t.request.get('/api/v1/openapi.json').set('Accept-Encoding', encoding).expect(200);
      assert.equal(res.headers['content-encoding'], encoding);
      assert.deepEqual(res.body, plain.body);
    }
    const compressed = await sizeOnTheWire(t.url, '/api/v1/openapi.json', 'br');
    assert.ok(compressed < JSON.stringify(plain.body).length / 3, `${compressed} bytes`);
    const asset = await t.request.get('/api/v1/docs/assets/swagger-ui-bundle.js').set('Accept-Encoding', 'gzip').expect(200);
    assert.equal(asset.headers['content-encoding'], 'gzip');
  });

  it('sends small answers as they are', async () => {
    const res = await t.request.get('/api/v1/me').set(ada.auth).set('Accept-Encoding', 'br, gzip').expect(200);
    assert.equal(res.headers['content-encoding'], undefined);
  });

  it('answers GET / with where the API and its reference are', async () => {
    const res = await t.request.get('/').expect(200);
    assert.deepEqual(res.body, { name: 'Tessera', api: '/api/v1', docs: '/api/v1/docs', openapi: '/api/v1/openapi.json' });
    await t.request.post('/').expect(404);
  });

  it('logs each request with the user and the client address, never the credential', async () => {
    const res = await t.request.get('/api/v1/me').set(ada.auth).expect(200);
    const line = logs.lines.find((l) => l.msg === 'request' && l.requestId === res.headers['x-request-id']);
    assert.ok(line);
    assert.equal(line.userId, ada.id);
    assert.match(line.ip, /127\.0\.0\.1|::1/);
    assert.doesNotMatch(JSON.stringify(logs.lines), new RegExp(ada.token));
    const anonymous = await t.request.get('/api/v1/health').expect(200);
    const anonymousLine = logs.lines.find((l) => l.msg === 'request' && l.requestId === anonymous.headers['x-request-id']);
    assert.equal(anonymousLine!.userId, undefined);
  });
});
