import assert from 'node:assert/strict';
import net from 'node:net';
import { startTestKernel, type TestKernel, signUp, type SignedUpUser } from '../../core/testing.ts';
import { LINGER_BYTES, LINGER_MS } from '../../core/linger.ts';
import { builtinPlugins } from '../../plugins/index.ts';
import { httpProbePlugin } from '../fixtures/http-probe.ts';
import { streamedFetch } from '../fixtures/streamed-fetch.ts';

const MB = 1024 * 1024;
const JSON_LIMIT = 2048;
/** The avatar route's cap: 1 MiB of file plus 16 KiB of multipart framing. */
const AVATAR_CAP = MB + 16 * 1024;
const BOUNDARY = 'tessera-test-boundary';
/** The kernel's wait for headers and for a body's next bytes in this file: a few seconds, as in production. */
const WAIT_MS = 1000;
const FILE_PART = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`);

function assertProblem(res: { status: number; headers: Headers; body: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.headers.get('content-type'), 'application/problem+json');
  assert.equal(res.body.code, code);
  assert.equal(res.body.status, status);
}

interface SlowExchange {
  /** All the server sent. */
  text: string;
  /** Milliseconds from the last byte sent to the server's closing, or to `deadlineMs` if it kept the connection. */
  ms: number;
  closed: boolean;
}

/**
 * A client that sends `parts` (strings, or pauses in milliseconds) and then nothing more, reading whatever comes back
 * until the server closes the connection or `deadlineMs` after its last byte.
 */
function slowClient(port: number, parts: Array<string | number>, deadlineMs: number): Promise<SlowExchange> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    let text = '';
    let sentAt = 0;
    let timer: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, ms: Date.now() - sentAt, closed });
    };
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => finish(true));
    socket.once('connect', async () => {
      for (const part of parts) {
        if (typeof part === 'number') await new Promise((r) => setTimeout(r, part));
        else socket.write(part);
      }
      sentAt = Date.now();
      timer = setTimeout(() => finish(false), deadlineMs);
    });
  });
}

/** The status line, headers and parsed body of the one answer in `text`. */
function answerIn(text: string): { head: string; body: any } {
  const [head, ...rest] = text.split('\r\n\r\n');
  const body = rest.join('\r\n\r\n');
  return { head, body: body ? JSON.parse(body) : undefined };
}

interface RawExchange {
  head: string;
  /** Milliseconds the client kept writing after the answer, without an error. */
  wroteAfterAnswerMs: number;
  /** Whether the server half-closed (FIN) after its answer. */
  sawEnd: boolean;
  /** How the exchange ended: 'client stopped', or the reset or write failure the client got. */
  ending: string;
}

/**
 * A client that keeps sending a chunked body after the answer (64 KiB every 10 ms, below the linger's byte bound),
 * as fetch does: it must read the whole answer, see the server's FIN, and not be reset while it is still writing.
 */
function rawUpload(port: number, head: string, keepWritingMs: number): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const chunk = Buffer.alloc(64 * 1024);
    const framed = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
    let text = '';
    let answeredAt = 0;
    let lastWriteOk = 0;
    let done = false;
    let sawEnd = false;
    const finish = (ending: string) => {
      if (done) return;
      done = true;
      clearInterval(pump);
      socket.destroy();
      resolve({ head: text.split('\r\n\r\n')[0], wroteAfterAnswerMs: answeredAt ? lastWriteOk - answeredAt : -1, sawEnd, ending });
    };
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (!answeredAt && text.includes('\r\n\r\n')) answeredAt = Date.now();
    });
    socket.on('end', () => (sawEnd = true));
    socket.on('error', (err: NodeJS.ErrnoException) => finish(err.code ?? err.message));
    socket.write(head);
    const pump = setInterval(() => {
      if (answeredAt && Date.now() - answeredAt > keepWritingMs) return finish('client stopped');
      socket.write(framed, (err) => err || (lastWriteOk = Date.now()));
    }, 10);
  });
}

describe('body limits hold however the body is sent, and the client reads the answer', () => {
  let t: TestKernel;
  let user: SignedUpUser;
  /** Bytes the server read on the next connection, once it is closed. */
  const nextConnectionBytes = () =>
    new Promise<number>((resolve) => t.kernel.server!.once('connection', (s) => s.once('close', () => resolve(s.bytesRead))));

  before(async () => {
    t = await startTestKernel({
      plugins: [...builtinPlugins, httpProbePlugin()],
      config: { http: { jsonLimit: JSON_LIMIT, headersTimeoutMs: WAIT_MS, bodyIdleTimeoutMs: WAIT_MS } },
    });
    user = await signUp(t);
  });
  after(() => t?.stop());

  it('fetch streaming a JSON body over the limit reads a 413 problem, not a reset', async () => {
    for (let i = 0; i < 3; i++) {
      const read = nextConnectionBytes();
      const res = await streamedFetch(`${t.url}/api/v1/http-probe/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, total: 64 * MB });
      assertProblem(res, 413, 'payload_too_large');
      assert.equal(res.headers.get('connection'), 'close');
      assert.equal(res.finishedSending, false, 'answered while the client was still sending');
      const bytes = await read;
      assert.ok(bytes <= JSON_LIMIT + LINGER_BYTES + 256 * 1024, `the server read ${bytes} bytes`);
    }
  });

  it('fetch streaming an upload over the cap reads a 413 problem, not a reset', async () => {
    for (let i = 0; i < 3; i++) {
      const read = nextConnectionBytes();
      const res = await streamedFetch(`${t.url}/api/v1/me/avatar`, {
        method: 'PUT',
        headers: { ...user.auth, 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` },
        head: FILE_PART,
        total: 64 * MB,
      });
      assertProblem(res, 413, 'payload_too_large');
      assert.equal(res.finishedSending, false);
      const bytes = await read;
      assert.ok(bytes <= AVATAR_CAP + LINGER_BYTES + 256 * 1024, `the server read ${bytes} bytes`);
    }
  });

  it('refuses a chunked multipart body without a boundary at once: 415, the 200 MB are not read', async () => {
    for (const contentType of ['multipart/form-data', 'multipart/form-data; boundary=', `multipart/form-data; boundary="${'x'.repeat(71)}"`]) {
      const read = nextConnectionBytes();
      const started = Date.now();
      const res = await streamedFetch(`${t.url}/api/v1/me/avatar`, { method: 'PUT', headers: { ...user.auth, 'Content-Type': contentType }, total: 200 * MB });
      assertProblem(res, 415, 'unsupported_media_type');
      assert.match(res.body.detail, /boundary/);
      assert.equal(res.finishedSending, false);
      const bytes = await read;
      assert.ok(bytes <= LINGER_BYTES + 256 * 1024, `${contentType}: the server read ${bytes} bytes`);
      assert.ok(Date.now() - started < LINGER_MS + 2000, `${contentType}: took ${Date.now() - started} ms`);
    }
  });

  it('stops at the cap a multipart body whose boundary never comes: 413 after about 1 MiB, not 200 MB', async () => {
    const read = nextConnectionBytes();
    const res = await streamedFetch(`${t.url}/api/v1/me/avatar`, {
      method: 'PUT',
      headers: { ...user.auth, 'Content-Type': 'multipart/form-data; boundary=never-sent' },
      total: 200 * MB,
    });
    assertProblem(res, 413, 'payload_too_large');
    const bytes = await read;
    assert.ok(bytes <= AVATAR_CAP + LINGER_BYTES + 256 * 1024, `the server read ${bytes} bytes`);
  });

  it('reads no more than the linger bound of a body it refuses before reading: wrong type, no credentials', async () => {
    for (const [headers, status] of [
      [{ ...user.auth, 'Content-Type': 'application/octet-stream' }, 415],
      [{ 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` }, 401],
    ] as const) {
      const read = nextConnectionBytes();
      const res = await streamedFetch(`${t.url}/api/v1/me/avatar`, { method: 'PUT', headers, head: FILE_PART, total: 200 * MB });
      assert.equal(res.status, status);
      assert.equal(res.headers.get('connection'), 'close');
      const bytes = await read;
      assert.ok(bytes <= LINGER_BYTES + 256 * 1024, `${status}: the server read ${bytes} bytes`);
    }
  });

  it('keeps reading (and discarding) after a 413 so a client still sending gets the answer, then closes with a FIN', async () => {
    const port = Number(new URL(t.url).port);
    const head =
      `PUT /api/v1/me/avatar HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${user.auth.Authorization}\r\n` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nTransfer-Encoding: chunked\r\n\r\n` +
      `${FILE_PART.length.toString(16)}\r\n${FILE_PART.toString('latin1')}\r\n`;
    const res = await rawUpload(port, head, 600);
    assert.match(res.head, /^HTTP\/1\.1 413 /);
    assert.match(res.head, /\r\nconnection: close/i);
    // Before the fix the server destroyed the socket as soon as the answer was written: the next write was reset. How
    // long writes kept completing after the answer depends on how fast a loaded server drains them (129 ms once in CI):
    // what counts is that they did, and that none was reset during the client's 600 ms.
    assert.ok(res.wroteAfterAnswerMs > 0, `the client could write for only ${res.wroteAfterAnswerMs} ms after the answer (${res.ending})`);
    assert.equal(res.ending, 'client stopped');
    assert.ok(res.sawEnd, 'the server half-closed after its answer');
  });

  describe('a client that stops sending', () => {
    const port = () => Number(new URL(t.url).port);
    /** Far more than the wait, far less than Node's own 300 s. */
    const DEADLINE_MS = WAIT_MS + 6000;

    it('is answered 408 request_timeout when its JSON body stalls, and the connection is closed', async () => {
      const head = `POST /api/v1/http-probe/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
      const res = await slowClient(port(), [head, '{"name": "sta'], DEADLINE_MS);
      assert.ok(res.closed, `the connection was still open ${DEADLINE_MS} ms after the body stalled`);
      const { head: status, body } = answerIn(res.text);
      assert.match(status, /^HTTP\/1\.1 408 /);
      assert.match(status, /\r\nconnection: close/i);
      assert.match(status, /\r\ncontent-type: application\/problem\+json/i);
      assert.match(status, /\r\nx-request-id: /i);
      assert.equal(body.code, 'request_timeout');
      assert.ok(res.ms >= WAIT_MS - 100 && res.ms < WAIT_MS + 3000, `answered ${res.ms} ms after the last byte`);
    });

    it('is answered 408 when an upload stalls halfway, and nothing is stored', async () => {
      const head =
        `PUT /api/v1/me/avatar HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${user.auth.Authorization}\r\n` +
        `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `${FILE_PART.length.toString(16)}\r\n${FILE_PART.toString('latin1')}\r\n`;
      const res = await slowClient(port(), [head], DEADLINE_MS);
      assert.ok(res.closed, `the connection was still open ${DEADLINE_MS} ms after the body stalled`);
      const { head: status, body } = answerIn(res.text);
      assert.match(status, /^HTTP\/1\.1 408 /);
      assert.equal(body.code, 'request_timeout');
      assert.equal((await t.db('users').where({ id: user.id }).first('avatar_key')).avatar_key, null);
    });

    it('is answered 408 when its headers never end, and the connection is closed', async () => {
      const res = await slowClient(port(), ['GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n'], DEADLINE_MS);
      assert.ok(res.closed, `the connection was still open ${DEADLINE_MS} ms after the headers stalled`);
      assert.match(res.text, /^HTTP\/1\.1 408 /);
      // Node checks for late headers once a second.
      assert.ok(res.ms < WAIT_MS + 3000, `answered ${res.ms} ms after the last byte`);
    });

    it('is not cut off while its body keeps coming, however slowly in all', async () => {
      const body = JSON.stringify({ name: 'steady' });
      const head = `POST /api/v1/http-probe/echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
      const pause = WAIT_MS / 2;
      // Longer in all than the wait, never idle as long as it.
      const parts = [head, ...[...body].flatMap((c, i) => (i % 4 === 3 ? [c, pause] : [c]))];
      const res = await slowClient(port(), parts, DEADLINE_MS);
      const { head: status, body: answer } = answerIn(res.text);
      assert.match(status, /^HTTP\/1\.1 200 /);
      assert.deepEqual(answer, { name: 'steady' });
    });
  });

  it('still answers on a new connection afterwards', async () => {
    const res = await fetch(`${t.url}/api/v1/health`);
    assert.equal(res.status, 200);
  });
});

describe('an upload whose client hangs up halfway', () => {
  it('ends its handler: the shutdown does not wait for a body that will never come', async () => {
    const t = await startTestKernel({ config: { shutdownTimeoutMs: 10000 } });
    try {
      const user = await signUp(t);
      const socket = net.connect(Number(new URL(t.url).port), '127.0.0.1');
      socket.on('error', () => {});
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write(
        `PUT /api/v1/me/avatar HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${user.auth.Authorization}\r\n` +
          `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nTransfer-Encoding: chunked\r\n\r\n` +
          `${FILE_PART.length.toString(16)}\r\n${FILE_PART.toString('latin1')}\r\n`,
      );
      await new Promise((r) => setTimeout(r, 300));
      socket.destroy();
      await new Promise((r) => setTimeout(r, 100));
      const started = Date.now();
      await t.kernel.stop();
      // Waiting for the body would take the whole 10 s deadline; a stop on a loaded machine took 3.6 s without it.
      assert.ok(Date.now() - started < 8000, `the shutdown took ${Date.now() - started} ms`);
    } finally {
      await t.stop();
    }
  });
});
