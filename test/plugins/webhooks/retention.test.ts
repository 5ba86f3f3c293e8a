import assert from 'node:assert/strict';
import { waitUntil } from '../../fixtures/wait.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { webhookWorld, type WebhookWorld } from './world.ts';

describe('webhooks: the delivery log retention', function () {
  this.timeout(30000);
  let w: WebhookWorld;
  let receiver: Receiver;

  before(async () => {
    w = await webhookWorld({ config: { plugins: { webhooks: { options: { allowPrivateNetworks: true, deliveryRetentionDays: 30 } } } } });
    receiver = await startReceiver();
  });
  after(async () => {
    await w.t.stop();
    await receiver.close();
  });

  it('deletes settled deliveries older than deliveryRetentionDays, keeping pending and younger ones', async () => {
    const hook = (await w.t.request.post(w.api('/webhooks')).set(w.admin.auth).send({ url: `${receiver.url}/hook`, events: ['record.created'] }).expect(201)).body;
    const log = async () => (await w.t.request.get(w.api(`/webhooks/${hook.id}/deliveries`)).set(w.admin.auth).expect(200)).body.data as Array<{ id: string; status: string }>;
    const records = w.api(`/databases/${w.db}/records`);
    for (const name of ['old ok', 'young ok']) await w.t.request.post(records).set(w.editor.auth).send({ values: { name } }).expect(201);
    await waitUntil('two successes', async () => (await log()).filter((d) => d.status === 'succeeded').length === 2);
    receiver.answer = () => ({ status: 500 });
    await w.t.request.post(records).set(w.editor.auth).send({ values: { name: 'old pending' } }).expect(201);
    await waitUntil('a failed attempt', async () => receiver.got.length === 3);
    await waitUntil('the failure recorded', async () => (await w.t.db('webhook_deliveries').whereNotNull('response_code').where({ status: 'pending' })).length === 1);

    const bodies = await w.t.db('webhook_deliveries').select('id', 'body', 'status');
    const named = (name: string) => bodies.find((d) => JSON.parse(d.body).data.record.values.name === name)!.id as string;
    await w.t.db('webhook_deliveries').whereIn('id', [named('old ok'), named('old pending')]).update({ created_at: w.t.db.raw("now() - interval '31 days'") });

    const purged = await w.t.container.resolverFor('webhooks')('webhooks.deliveries').purge(30);
    assert.equal(purged, 1);
    const left = await log();
    assert.deepEqual(left.map((d) => d.id).sort(), [named('young ok'), named('old pending')].sort(), 'the old success is gone; the pending one and the young one stay');
    await w.t.request.post(w.api(`/webhooks/${hook.id}/deliveries/${named('old ok')}/redeliver`)).set(w.admin.auth).expect(404);
  });
});
