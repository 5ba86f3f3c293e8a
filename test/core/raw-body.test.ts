import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import { definePlugin, type Plugin } from '../../core/plugin.ts';
import { defineRoute } from '../../core/routes.ts';
import { startTestKernel, type TestKernel } from '../../core/testing.ts';
import { streamedFetch } from '../fixtures/streamed-fetch.ts';

/** The raw route's own limit, far below the kernel's JSON limit so that it is the one that counts. */
const LIMIT = 4096;
const PATH = '/raw-probe/echo';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A plugin with one public raw route that tells what it got. */
function rawProbePlugin(): Plugin {
  return definePlugin({
    id: 'raw-probe',
    version: '1.0.0',
    kernel: '^1.0.0',
    register(ctx) {
      ctx.routes([
        defineRoute({
          method: 'POST',
          path: PATH,
          summary: 'Tell what raw bytes came',
          auth: 'public',
          bodyType: 'raw',
          bodyLimit: LIMIT,
          responses: { 200: { description: 'The length, digest and media type of the body' } },
          handler: ({ rawBytes, body, ctx }) => ({
            buffer: Buffer.isBuffer(rawBytes),
            parsed: body !== undefined,
            length: rawBytes?.length,
            sha256: rawBytes && sha256(rawBytes),
            type: ctx.get('content-type'),
          }),
        }),
      ]);
    },
  });
}

/** Sends the request head alone (the body is announced, never sent) and reads the answer, or what came by `deadlineMs`. */
function headOnly(port: number, head: string, deadlineMs: number): Promise<{ text: string; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect({ port, host: '127.0.0.1' });
    let text = '';
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, ms: Date.now() - started });
    };
    const timer = setTimeout(finish, deadlineMs);
    socket.on('data', (d) => {
      text += d.toString('latin1');
      // One answer, whole: its body is as long as it says.
      const [head, body = ''] = text.split('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(head)?.[1];
      if (length !== undefined && Buffer.byteLength(body, 'latin1') >= Number(length)) finish();
    });
    socket.on('error', () => {});
    socket.on('close', finish);
    socket.write(head);
  });
}

describe('raw request bodies', () => {
  let t: TestKernel;
  const url = () => `${t.url}/api/v1${PATH}`;
  const post = async (body: Buffer | string | undefined, headers: Record<string, string> = {}) => {
    const res = await fetch(url(), { method: 'POST', headers, body: Buffer.isBuffer(body) ? new Uint8Array(body) : body });
    return { status: res.status, headers: res.headers, body: await res.json() };
  };
  const assertTooLarge = (res: { status: number; headers: Headers; body: any }) => {
    assert.equal(res.status, 413, JSON.stringify(res.body));
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.equal(res.body.code, 'payload_too_large');
    assert.equal(res.body.status, 413);
    assert.match(res.body.detail, new RegExp(String(LIMIT)));
  };

  before(async () => {
    // The idle wait is long: an answer that comes at once cannot be the 408 of a body that never came.
    t = await startTestKernel({ plugins: [rawProbePlugin()], config: { http: { bodyIdleTimeoutMs: 20_000 } } });
  });
  after(() => t?.stop());

  it('hands over bytes that are not UTF-8 exactly as they were sent', async () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x90, 0x28, 0xbc, 0x80]), randomBytes(2000)]);
    assert.throws(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    const res = await post(bytes, { 'Content-Type': 'application/octet-stream' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { buffer: true, parsed: false, length: bytes.length, sha256: sha256(bytes), type: 'application/octet-stream' });
  });

  it('takes any media type untouched: text, a form, and JSON that does not parse (no 400, no 415)', async () => {
    const cases: Array<[string, string]> = [
      ['text/plain; charset=utf-8', 'plain text, ünïcödé and all\r\n'],
      ['application/x-www-form-urlencoded', 'a=1&b=%ZZ&a=2&c'],
      ['application/json', '{"event": "charge.succeeded", '],
      ['application/json', '{"__proto__": {"polluted": true}, "n": 1e999}'],
      ['image/png', '\x89PNG\r\n\x1a\n'],
    ];
    for (const [type, text] of cases) {
      const bytes = Buffer.from(text, 'utf8');
      const res = await post(bytes, { 'Content-Type': type });
      assert.equal(res.status, 200, `${type}: ${JSON.stringify(res.body)}`);
      assert.deepEqual(res.body, { buffer: true, parsed: false, length: bytes.length, sha256: sha256(bytes), type });
    }
    // Without a media type at all.
    const bytes = Buffer.from('no content type');
    const res = await fetch(url(), { method: 'POST', body: new Blob([bytes]) });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { buffer: true, parsed: false, length: bytes.length, sha256: sha256(bytes), type: '' });
  });

  it('takes a body of exactly the limit, sent with or without a Content-Length', async () => {
    const bytes = randomBytes(LIMIT);
    const res = await post(bytes, { 'Content-Type': 'application/octet-stream' });
    assert.equal(res.status, 200);
    assert.equal(res.body.length, LIMIT);
    assert.equal(res.body.sha256, sha256(bytes));
    const chunked = await streamedFetch(url(), { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, total: LIMIT });
    assert.equal(chunked.status, 200, JSON.stringify(chunked.body));
    assert.equal(chunked.body.length, LIMIT);
    assert.equal(chunked.body.sha256, sha256(Buffer.alloc(LIMIT)));
  });

  it('refuses a body one byte over the limit: 413 problem', async () => {
    assertTooLarge(await post(randomBytes(LIMIT + 1), { 'Content-Type': 'application/octet-stream' }));
    assertTooLarge(await post('x'.repeat(LIMIT + 1), { 'Content-Type': 'text/plain' }));
  });

  it('refuses a chunked body (no Content-Length) over the limit: 413 problem', async () => {
    for (const total of [LIMIT + 1, 1024 * 1024]) {
      const res = await streamedFetch(url(), { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, total });
      assertTooLarge(res);
      assert.equal(res.headers.get('connection'), 'close');
    }
  });

  it('refuses at once a body announced over the limit, before any of it comes', async () => {
    const port = Number(new URL(t.url).port);
    const head = `POST /api/v1${PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: ${LIMIT + 1}\r\n\r\n`;
    const { text, ms } = await headOnly(port, head, 5000);
    const [status, body] = text.split('\r\n\r\n');
    assert.match(status, /^HTTP\/1\.1 413 /, text);
    assert.match(status, /\r\nconnection: close/i);
    assert.equal(JSON.parse(body).code, 'payload_too_large');
    assert.ok(ms < 5000, `answered after ${ms} ms`);
  });

  it('hands over an empty buffer when there is no body', async () => {
    const empty = { buffer: true, parsed: false, length: 0, sha256: sha256(Buffer.alloc(0)) };
    const res = await post(undefined);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { ...empty, type: '' });
    const port = Number(new URL(t.url).port);
    // Neither Content-Length nor Transfer-Encoding: a request without a body.
    const { text } = await headOnly(port, `POST /api/v1${PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\r\n`, 5000);
    const [status, body] = text.split('\r\n\r\n');
    assert.match(status, /^HTTP\/1\.1 200 /, text);
    assert.deepEqual(JSON.parse(body), { ...empty, type: 'application/json' });
  });

  it('is described in the OpenAPI document as a body of any media type', async () => {
    const res = await t.request.get('/api/v1/openapi.json');
    assert.equal(res.status, 200);
    const operation = res.body.paths[`/api/v1${PATH}`]?.post;
    assert.ok(operation, Object.keys(res.body.paths).join(', '));
    assert.equal(operation.requestBody.required, false);
    assert.deepEqual(Object.keys(operation.requestBody.content), ['*/*']);
    assert.deepEqual(operation.requestBody.content['*/*'].schema, { type: 'string', format: 'binary' });
    assert.ok(operation.responses['413'], `no 413 among ${Object.keys(operation.responses).join(', ')}`);
    assert.ok(!JSON.stringify(operation.responses).includes('malformed_json'));
  });
});
