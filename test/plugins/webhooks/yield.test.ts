import assert from 'node:assert/strict';
import http from 'node:http';
import { sleep, waitUntil } from '../../fixtures/wait.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { webhookWorld, type WebhookWorld } from './world.ts';

const MAX_DELAY_MS = 3000;

/** A request the server is still answering: its body arrives only when `finish` is called (a slow upload, say). */
function inFlight(url: string, path: string, auth: Record<string, string>): { finish(): Promise<number> } {
  const req = http.request(`${url}${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'content-length': '2' } });
  const answered = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
  req.write('{');
  return {
    finish() {
      req.end('}');
      return answered;
    },
  };
}

describe('webhooks: deliveries yield to requests', function () {
  this.timeout(30000);
  let w: WebhookWorld;
  let receiver: Receiver;
  let records: string;

  before(async () => {
    w = await webhookWorld({ config: { plugins: { webhooks: { options: { allowPrivateNetworks: true, maxDelayMs: MAX_DELAY_MS } } } } });
    receiver = await startReceiver();
    records = w.api(`/databases/${w.db}/records`);
    await w.t.request.post(w.api('/webhooks')).set(w.admin.auth).send({ url: `${receiver.url}/hook`, events: ['record.created'] }).expect(201);
  });
  after(async () => {
    await w.t.stop();
    await receiver.close();
  });
  beforeEach(() => {
    receiver.got.length = 0;
  });

  it('holds a delivery while a request is in flight and sends it once the instance is quiet', async () => {
    const held = inFlight(w.t.url, records, w.editor.auth);
    await w.t.request.post(records).set(w.editor.auth).send({ values: { name: 'during' } }).expect(201);
    await sleep(500);
    assert.equal(receiver.got.length, 0, 'nothing is sent while a request is being answered');
    const finished = Date.now();
    assert.equal(await held.finish(), 422, 'the held request creates nothing');
    await waitUntil('the delivery', () => receiver.got.length === 1, 5000, 10);
    assert.ok(Date.now() - finished < MAX_DELAY_MS - 500, 'sent soon after the instance went quiet, not at the deadline');
    assert.equal(JSON.parse(receiver.got[0].body).data.record.values.name, 'during');
  });

  it('sends a delivery after maxDelayMs even while requests go on', async () => {
    const held = inFlight(w.t.url, records, w.editor.auth);
    const written = Date.now();
    await w.t.request.post(records).set(w.editor.auth).send({ values: { name: 'busy' } }).expect(201);
    // The held request is still in flight: a delivery that waited for quiet would never come. The bound is loose
    // because a loaded CI machine can take seconds to get to the fan-out.
    await waitUntil('the delivery while the request is still held', () => receiver.got.length === 1, 15_000, 10);
    const waited = Date.now() - written;
    assert.ok(waited >= MAX_DELAY_MS - 100, `held for its longest wait while the instance was busy (${waited} ms)`);
    assert.equal(await held.finish(), 422);
  });
});
