import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { startTestKernel, type TestKernel } from '../../core/testing.ts';
import { builtinPlugins } from '../../plugins/index.ts';
import { httpProbePlugin } from '../fixtures/http-probe.ts';
import { sleep, waitUntil } from '../fixtures/wait.ts';

/** A TCP hop between the kernel and PostgreSQL that the test can cut and restore, like a network failure. */
class DatabaseLink {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  get isUp(): boolean {
    return this.server !== null;
  }

  async up(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(5432, new URL(process.env.DATABASE_URL!).hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => this.sockets.delete(s));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', () => resolve()));
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server!;
    this.server = null;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  url(): string {
    const url = new URL(process.env.DATABASE_URL!);
    url.host = `127.0.0.1:${this.port}`;
    return url.toString();
  }
}

function get(url: string, agent: http.Agent | false = false): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      })
      .on('error', reject);
  });
}

describe('GET /api/v1/health when the database is unreachable', () => {
  let t: TestKernel;
  const link = new DatabaseLink();
  after(async () => {
    if (link.port && !link.isUp) await link.up(); // so the schema can be dropped
    await t?.stop();
  });

  it('answers 503 { status: "error", database: "error" } while the database is gone, and 200 when it is back (PostgreSQL)', async function () {
    if (!process.env.DATABASE_URL) return this.skip();
    await link.up();
    t = await startTestKernel({ config: { databaseUrl: link.url() } });
    await t.request.get('/api/v1/health').expect(200, { status: 'ok', database: 'ok' });

    await link.down();
    for (let i = 0; i < 2; i++) {
      const res = await t.request.get('/api/v1/health').expect(503);
      assert.deepEqual(res.body, { status: 'error', database: 'error' });
      assert.ok(res.headers['x-request-id']);
    }

    await link.up();
    await t.request.get('/api/v1/health').expect(200, { status: 'ok', database: 'ok' });
  });

  it('answers 503 once the embedded database has shut down under the running server (PGlite)', async function () {
    if (process.env.DATABASE_URL) return this.skip();
    t = await startTestKernel();
    await t.request.get('/api/v1/health').expect(200, { status: 'ok', database: 'ok' });
    await (t.db.client as unknown as { pglite: { close(): Promise<void> } }).pglite.close();
    const res = await t.request.get('/api/v1/health').expect(503);
    assert.deepEqual(res.body, { status: 'error', database: 'error' });
  });
});

describe('graceful shutdown', () => {
  /** A kernel whose GET /http-probe/slow waits until `release()`, then queries the database. */
  async function slowKernel() {
    let entered!: () => void;
    let release!: () => void;
    let finished!: (outcome: 'ok' | Error) => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    const outcome = new Promise<'ok' | Error>((resolve) => (finished = resolve));
    const t = await startTestKernel({ plugins: [...builtinPlugins, httpProbePlugin({ entered, gate, finished })] });
    return { t, inHandler, release, outcome };
  }

  it('lets an in-flight request finish with 200, refuses new connections, then closes the pool promptly', async () => {
    const { t, inHandler, release, outcome } = await slowKernel();
    const keepAlive = new http.Agent({ keepAlive: true });
    try {
      const inFlight = get(`${t.url}/api/v1/http-probe/slow`, keepAlive);
      await inHandler;

      let stoppedAt = 0;
      const stopped = t.kernel.stop().then(() => (stoppedAt = Date.now()));
      // Connections already queued are accepted and answered first (a few event-loop turns), then the listener closes.
      await waitUntil('the listener to close', () => !t.kernel.server!.listening, 2000, 5);
      await assert.rejects(get(`${t.url}/api/v1/health`), { code: 'ECONNREFUSED' });
      assert.equal(stoppedAt, 0, 'the kernel waits for the in-flight request');

      release();
      const res = await inFlight;
      const answeredAt = Date.now();
      assert.deepEqual(res, { status: 200, body: { done: true } });
      assert.equal(await outcome, 'ok', 'the request could still use the database');
      await stopped;
      // A keep-alive client must not hold the shutdown open until its socket times out.
      assert.ok(stoppedAt - answeredAt < 1500, `stopped ${stoppedAt - answeredAt} ms after the last response`);
      await assert.rejects(t.db.raw('select 1'), 'the pool is closed');
    } finally {
      keepAlive.destroy();
      await t.stop();
    }
  });

  it('keeps the pool open for a request whose client hung up until its handler is done', async () => {
    const { t, inHandler, release, outcome } = await slowKernel();
    try {
      const req = http.get(`${t.url}/api/v1/http-probe/slow`, { agent: false });
      req.on('error', () => {});
      await inHandler;
      req.destroy();
      await sleep(100);

      let stopped = false;
      const stopping = t.kernel.stop().then(() => (stopped = true));
      await sleep(500);
      assert.equal(stopped, false, 'the kernel waits for the handler, not for the socket');
      release();
      assert.equal(await outcome, 'ok', 'the handler could still use the database');
      await stopping;
    } finally {
      await t.stop();
    }
  });
});
