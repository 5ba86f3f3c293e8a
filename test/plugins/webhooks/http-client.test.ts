import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookClient, systemResolver } from '../../../plugins/webhooks/http-client.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';

describe('webhooks: the HTTP client', () => {
  storageIndependent();
  it('sends again on a new connection when a kept-alive one is reset as it is reused, and reports a reset on a new one', async () => {
    let requests = 0;
    let resetNext = true;
    const server = http.createServer((req, res) => {
      requests++;
      req.resume();
      // The second request on the first connection meets what a receiver's idle timeout does to a kept-alive socket.
      if (requests === 2 && resetNext) return void req.socket.resetAndDestroy();
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const options = { resolver: systemResolver, allowPrivateNetworks: true, timeoutMs: 5000, maxResponseBytes: 65536 };
    const client = new WebhookClient(options);
    const another = new WebhookClient(options);
    try {
      assert.equal((await client.post(url, {}, '{}')).status, 204);
      const again = await client.post(url, {}, '{}');
      assert.deepEqual([again.ok, again.status, again.error], [true, 204, null]);
      assert.equal(requests, 3, 'the reset one, then the same body on a new connection');

      resetNext = false;
      server.removeAllListeners('request');
      server.on('request', (req: http.IncomingMessage) => req.socket.resetAndDestroy());
      const fresh = await another.post(url, {}, '{}');
      assert.deepEqual([fresh.ok, fresh.status, fresh.error], [false, null, 'connection reset']);
    } finally {
      client.close();
      another.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
