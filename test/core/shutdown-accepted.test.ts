import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { startTestKernel } from '../../core/testing.ts';
import { sleep } from '../fixtures/wait.ts';

type Outcome = { status: number; connection?: string; body: any } | { error: string };

function get(url: string): Promise<Outcome> {
  return new Promise((resolve) => {
    http
      .get(url, { agent: false }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: JSON.parse(text) }));
        res.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
      })
      .on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
  });
}

describe('graceful shutdown of connections accepted but not yet read', () => {
  // The shutdown begins when the first (or the tenth) of 40 connections opened at once is accepted: the others have
  // completed their handshake and wait in the listen backlog, none of their requests has been read.
  for (const stopAt of [1, 10]) {
    it(`answers every one of 40 requests whose connections were opened when the shutdown began (stop at connection ${stopAt})`, async () => {
      // What is under test is that none is cut, not how long they take: on a loaded machine (CI runs two suites on two
      // cores) answering 40 took past the default 10 s, and the deadline then cut what was left.
      const t = await startTestKernel({ config: { shutdownTimeoutMs: 60_000 } });
      try {
        let accepted = 0;
        let stopping: Promise<void> | undefined;
        t.kernel.server!.on('connection', () => {
          if (++accepted === stopAt) stopping = t.kernel.stop();
        });
        const outcomes = await Promise.all(Array.from({ length: 40 }, () => get(`${t.url}/api/v1/health`)));
        assert.ok(stopping, 'the shutdown began');
        await stopping;
        const failed = outcomes.filter((o) => !('status' in o) || o.status !== 200);
        assert.deepEqual(failed, [], `${failed.length} of 40 requests were not answered 200`);
        for (const o of outcomes) assert.equal('status' in o && o.connection, 'close', 'answers during a shutdown close their connection');
        await assert.rejects(get(`${t.url}/api/v1/health`).then((o) => ('error' in o ? Promise.reject(o) : o)), { error: 'ECONNREFUSED' });
      } finally {
        await t.stop();
      }
    });
  }

  it('reads and answers a request whose headers were only half sent when the shutdown began', async () => {
    const t = await startTestKernel();
    try {
      const socket = net.connect(Number(new URL(t.url).port), '127.0.0.1');
      let text = '';
      socket.on('data', (d) => (text += d));
      const ended = new Promise<void>((resolve) => socket.on('end', resolve));
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write('GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      await sleep(100);
      const stopping = t.kernel.stop();
      await sleep(200);
      socket.write('Accept: application/json\r\n\r\n');
      await ended;
      assert.match(text, /^HTTP\/1\.1 200 /);
      assert.match(text, /\r\nconnection: close\r\n/i);
      await stopping;
    } finally {
      await t.stop();
    }
  });

  it('does not wait for a connection that never sends a request beyond a short grace', async () => {
    const t = await startTestKernel({ config: { shutdownTimeoutMs: 10000 } });
    try {
      const socket = net.connect(Number(new URL(t.url).port), '127.0.0.1');
      socket.on('error', () => {});
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      const started = Date.now();
      await t.kernel.stop();
      assert.ok(Date.now() - started < 3000, `the shutdown took ${Date.now() - started} ms`);
      socket.destroy();
    } finally {
      await t.stop();
    }
  });
});
