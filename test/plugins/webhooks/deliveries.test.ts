import assert from 'node:assert/strict';
import { Webhook as Verifier } from 'standardwebhooks';
import { RETRY_SCHEDULE_S } from '../../../plugins/webhooks/schedule.ts';
import { sleep, waitUntil } from '../../fixtures/wait.ts';
import { startReceiver, type Answer, type Receiver } from './receiver.ts';
import { webhookWorld, type WebhookWorld } from './world.ts';

/** The retry schedule compressed 50,000 times: its nine steps (5 s … 24 h) take about 5 s in all. */
const SCALE = 0.00002;

describe('webhooks: deliveries', function () {
  this.timeout(60000);
  let w: WebhookWorld;
  let receiver: Receiver;

  before(async () => {
    w = await webhookWorld({ config: { plugins: { webhooks: { options: { allowPrivateNetworks: true, retryScale: SCALE, pollMs: 20 } } } } });
    receiver = await startReceiver();
  });
  after(async () => {
    await w.t.stop();
    await receiver.close();
  });
  beforeEach(() => {
    receiver.got.length = 0;
    receiver.answer = () => ({ status: 204 });
  });

  const records = (db = w.db) => w.api(`/databases/${db}/records`);
  async function webhook(body: Record<string, unknown> = {}, path = '/hook'): Promise<{ id: string; secret: string }> {
    const res = await w.t.request.post(w.api('/webhooks')).set(w.admin.auth).send({ url: `${receiver.url}${path}`, events: ['record.created'], enabled: true, ...body }).expect(201);
    return res.body;
  }
  const deliveries = async (id: string) => (await w.t.request.get(w.api(`/webhooks/${id}/deliveries`)).set(w.admin.auth).expect(200)).body.data as Array<Record<string, any>>;

  it('creates a webhook whose secret is shown once, never in a read, and refuses bad input with pointers', async () => {
    const created = await w.t.request.post(w.api('/webhooks')).set(w.admin.auth).send({ url: `${receiver.url}/x`, events: ['record.created', '*'], enabled: false }).expect(201);
    assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(created.body.secret.slice(6), 'base64').length, 32);
    assert.deepEqual(
      { url: created.body.url, events: created.body.events, enabled: created.body.enabled, database_id: created.body.database_id, disabled_reason: created.body.disabled_reason, workspace_id: created.body.workspace_id },
      { url: `${receiver.url}/x`, events: ['record.created', '*'], enabled: false, database_id: null, disabled_reason: null, workspace_id: w.ws },
    );
    const got = await w.t.request.get(w.api(`/webhooks/${created.body.id}`)).set(w.admin.auth).expect(200);
    assert.equal(got.body.secret, undefined);
    const listed = await w.t.request.get(w.api('/webhooks')).set(w.admin.auth).expect(200);
    assert.ok(listed.body.data.some((h: { id: string }) => h.id === created.body.id));
    assert.ok(!JSON.stringify(listed.body).includes(created.body.secret), 'no list shows the secret');
    const patched = await w.t.request.patch(w.api(`/webhooks/${created.body.id}`)).set(w.admin.auth).send({ events: ['record.deleted'] }).expect(200);
    assert.deepEqual(patched.body.events, ['record.deleted']);
    assert.equal(patched.body.secret, undefined);

    const before = (await w.t.request.get(w.api('/webhooks?limit=200')).set(w.admin.auth)).body.data.length;
    for (const [body, pointer] of [
      [{ url: 'ftp://example.com/x', events: ['record.created'] }, '/url'],
      [{ url: 'not a url', events: ['record.created'] }, '/url'],
      [{ url: `${receiver.url}/x`, events: [] }, '/events'],
      [{ url: `${receiver.url}/x`, events: ['Record Created'] }, '/events/0'],
      [{ url: `${receiver.url}/x`, events: ['record.created'], secret: 'whsec_mine' }, ''],
      [{ url: `${receiver.url}/x`, events: ['record.created'], database_id: '00000000-0000-4000-8000-000000000000' }, '/database_id'],
    ] as const) {
      const res = await w.t.request.post(w.api('/webhooks')).set(w.admin.auth).send(body).expect(422);
      assert.equal(res.body.code, 'validation_failed', JSON.stringify(body));
      if (pointer) assert.ok(res.body.errors.some((e: { pointer: string }) => e.pointer.startsWith(pointer)), `${JSON.stringify(body)} → ${JSON.stringify(res.body.errors)}`);
    }
    assert.equal((await w.t.request.get(w.api('/webhooks?limit=200')).set(w.admin.auth)).body.data.length, before, 'nothing stored');
    await w.t.request.delete(w.api(`/webhooks/${created.body.id}`)).set(w.admin.auth).expect(204);
    await w.t.request.get(w.api(`/webhooks/${created.body.id}`)).set(w.admin.auth).expect(404);
  });

  it('delivers a committed record as Standard Webhooks that the reference library verifies, with what was saved', async () => {
    const hook = await webhook();
    const record = (await w.t.request.post(records()).set(w.editor.auth).send({ values: { name: 'Launch' } }).expect(201)).body;
    const [got] = await waitUntil('the delivery', () => (receiver.got.length ? receiver.got : null));
    const verified = new Verifier(hook.secret).verify(got.body, got.headers as Record<string, string>) as Record<string, any>;
    assert.equal(verified.type, 'record.created');
    assert.equal(verified.data.record.id, record.id);
    assert.equal(verified.data.record.values.name, 'Launch', 'the saved values, not a stale copy');
    assert.equal(verified.data.database_id, w.db);
    assert.ok(!Number.isNaN(Date.parse(verified.timestamp)));
    assert.match(String(got.headers['webhook-id']), /^msg_/);
    assert.ok(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000) < 30);
    assert.throws(() => new Verifier(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(got.body, got.headers as Record<string, string>), 'another secret does not verify');

    const [delivery] = await waitUntil('the log', async () => ((await deliveries(hook.id))[0]?.status === 'succeeded' ? deliveries(hook.id) : null));
    assert.equal(delivery.attempt, 1);
    assert.equal(delivery.response_code, 204);
    assert.equal(delivery.error, null);
    assert.equal(delivery.next_retry_at, null);
    assert.equal(delivery.event_type, 'record.created');
    assert.equal(delivery.message_id, got.headers['webhook-id']);
    assert.ok(Number.isInteger(delivery.duration_ms));
    await w.t.request.delete(w.api(`/webhooks/${hook.id}`)).set(w.admin.auth).expect(204);
  });

  it('sends one delivery per event (a bulk of 100 → 100), none for an unchanged write, other workspaces or databases', async () => {
    const hook = await webhook({ events: ['record.created', 'record.updated'], database_id: w.db });
    const other = await w.t.request.post(`/api/v1/workspaces/${w.otherWs}/webhooks`).set(w.outsider.auth).send({ url: `${receiver.url}/other`, events: ['*'] }).expect(201);
    const bulk = (await w.t.request.post(records()).set(w.editor.auth).send({ records: Array.from({ length: 100 }, (_, i) => ({ values: { name: `R${i}` } })) }).expect(201)).body.data;
    await w.t.request.post(records(w.otherDb)).set(w.editor.auth).send({ values: { name: 'elsewhere' } }).expect(201);
    await w.t.request.patch(`${records()}/${bulk[0].id}`).set(w.editor.auth).send({ values: { name: 'R0' } }).expect(200);
    await w.t.request.patch(`${records()}/${bulk[1].id}`).set(w.editor.auth).send({ values: { name: 'changed' } }).expect(200);
    await waitUntil('101 deliveries', () => receiver.got.length >= 101);
    await sleep(300);
    const bodies = receiver.got.map((r) => JSON.parse(r.body));
    assert.equal(receiver.got.length, 101, JSON.stringify(bodies.filter((b) => b.type !== 'record.created')));
    assert.equal(new Set(receiver.got.map((r) => r.headers['webhook-id'])).size, 101, 'one webhook-id per event');
    assert.deepEqual(bodies.filter((b) => b.type === 'record.created').map((b) => b.data.record.values.name).sort(), bulk.map((r: any) => r.values.name).sort());
    const updates = bodies.filter((b) => b.type === 'record.updated');
    assert.equal(updates.length, 1, 'the unchanged write sent nothing');
    assert.equal(updates[0].data.after.values.name, 'changed');
    assert.ok(!bodies.some((b) => b.data.database_id !== w.db), 'nothing from another database');
    await w.t.request.delete(w.api(`/webhooks/${hook.id}`)).set(w.admin.auth).expect(204);
    await w.t.request.delete(`/api/v1/workspaces/${w.otherWs}/webhooks/${other.body.id}`).set(w.outsider.auth).expect(204);
  });

  it('delivers only events that occur once the webhook exists or was enabled, however late the fan-out', async () => {
    const names = () => receiver.got.map((r) => `${r.path} ${JSON.parse(r.body).data.record.values.name}`).sort();
    const off = await webhook({ enabled: false }, '/was-off');
    // The fan-out stopped: the writes commit, their events wait in the outbox, as an import's thousands do.
    await w.t.kernel.events.stop();
    let fresh: { id: string } | undefined;
    try {
      await w.t.request.post(records()).set(w.editor.auth).send({ records: [{ values: { name: 'Before 1' } }, { values: { name: 'Before 2' } }] }).expect(201);
      fresh = await webhook({}, '/new');
      await w.t.request.patch(w.api(`/webhooks/${off.id}`)).set(w.admin.auth).send({ enabled: true }).expect(200);
    } finally {
      w.t.kernel.events.start();
    }
    await w.t.request.post(records()).set(w.editor.auth).send({ values: { name: 'After' } }).expect(201);
    await waitUntil('the deliveries of After', () => receiver.got.length >= 2);
    await sleep(300);
    assert.deepEqual(names(), ['/new After', '/was-off After']);
    for (const hook of [off, fresh!]) await w.t.request.delete(w.api(`/webhooks/${hook.id}`)).set(w.admin.auth).expect(204);
  });

  it('retries a failing endpoint on the schedule with jitter, keeping webhook-id, then disables it and notifies the admins', async () => {
    receiver.answer = () => ({ status: 500 });
    const hook = await webhook();
    await w.t.request.post(records()).set(w.editor.auth).send({ values: { name: 'Doomed' } }).expect(201);
    await waitUntil('ten attempts', () => receiver.got.length >= 10, 30000);
    await sleep(200);
    assert.equal(receiver.got.length, 10, 'no attempt after the last');
    assert.equal(new Set(receiver.got.map((r) => r.headers['webhook-id'])).size, 1, 'the same webhook-id on every attempt');
    for (const r of receiver.got) new Verifier(hook.secret).verify(r.body, r.headers as Record<string, string>);
    RETRY_SCHEDULE_S.forEach((step, i) => {
      const gap = receiver.got[i + 1].at - receiver.got[i].at;
      assert.ok(gap >= step * 1000 * SCALE * 0.9 - 5, `attempt ${i + 2} came ${gap} ms after attempt ${i + 1}; the step is ${step * 1000 * SCALE} ms`);
    });
    // The first step (0.1 ms scaled) is shorter than the sender's own latency; the last (1.7 s) is not.
    const lastStepMs = RETRY_SCHEDULE_S[RETRY_SCHEDULE_S.length - 1] * 1000 * SCALE;
    assert.ok(receiver.got[1].at - receiver.got[0].at < lastStepMs, 'the first retry does not wait for the last step');

    const [delivery] = await waitUntil('the failed delivery', async () => ((await deliveries(hook.id))[0]?.status === 'failed' ? deliveries(hook.id) : null));
    assert.equal(delivery.attempt, 10);
    assert.equal(delivery.response_code, 500);
    assert.equal(delivery.error, 'HTTP 500');
    assert.equal(delivery.next_retry_at, null);
    const disabled = (await w.t.request.get(w.api(`/webhooks/${hook.id}`)).set(w.admin.auth).expect(200)).body;
    assert.equal(disabled.enabled, false);
    assert.match(disabled.disabled_reason, /all 10 attempts/);
    const inbox = (await w.t.request.get(w.api('/notifications')).set(w.admin.auth).expect(200)).body.data;
    assert.ok(inbox.some((n: any) => n.type === 'webhook_disabled' && n.subject?.id === hook.id), JSON.stringify(inbox));
    const editorInbox = (await w.t.request.get(w.api('/notifications')).set(w.editor.auth).expect(200)).body.data;
    assert.ok(!editorInbox.some((n: any) => n.type === 'webhook_disabled'), 'only admins are told');

    receiver.got.length = 0;
    await w.t.request.post(records()).set(w.editor.auth).send({ values: { name: 'Unheard' } }).expect(201);
    await sleep(500);
    assert.equal(receiver.got.length, 0, 'a disabled webhook receives nothing');
    await w.t.request.delete(w.api(`/webhooks/${hook.id}`)).set(w.admin.auth).expect(204);
  });

  it('disables a webhook after disableAfterFailures (20) failed attempts in a row, across deliveries', async () => {
    receiver.answer = () => ({ status: 503 });
    const hook = await webhook();
    await w.t.request.post(records()).set(w.editor.auth).send({ records: Array.from({ length: 25 }, (_, i) => ({ values: { name: `F${i}` } })) }).expect(201);
    const got = await waitUntil('the webhook disabled', async () => {
      const res = (await w.t.request.get(w.api(`/webhooks/${hook.id}`)).set(w.admin.auth).expect(200)).body;
      return res.enabled ? null : res;
    });
    assert.match(got.disabled_reason, /^20 consecutive failed attempts \(last: HTTP 503\)/);
    const log = await deliveries(hook.id);
    assert.ok(log.some((d) => d.status === 'pending'), 'the deliveries not yet given up on wait for the webhook to be enabled again');
    await w.t.request.delete(w.api(`/webhooks/${hook.id}`)).set(w.admin.auth).expect(204);
  });

  it('disables a webhook at once on 410 Gone', async () => {
    receiver.answer = () => ({ status: 410 });
    // A path of its own: an attempt of an earlier test's webhook still under way when it was deleted may land here too.
    const hook = await webhook({}, '/gone');
    await w.t.request.post(records()).set(w.editor.auth).send({ values: { name: 'Gone' } }).expect(201);
    const [delivery] = await waitUntil('the failed delivery', async () => ((await deliveries(hook.id))[0]?.status === 'failed' ? deliveries(hook.id) : null));
    assert.equal(delivery.attempt, 1);
    assert.equal(delivery.response_code, 410);
    const got = (await w.t.request.get(w.api(`/webhooks/${hook.id}`)).set(w.admin.auth).expect(200)).body;
    assert.equal(got.enabled, false);
    assert.match(got.disabled_reason, /410/);
    await sleep(300);
    assert.equal(receiver.got.filter((r) => r.path === '/gone').length, 1);
    await w.t.request.delete(w.api(`/webhooks/${hook.id}`)).set(w.admin.auth).expect(204);
  });

  it("waits for a receiver's Retry-After when it is longer than the schedule's step, and treats a redirect as a failure", async () => {
    // Only this test's event counts: an attempt of an earlier test's webhook may still be on its way under load.
    const ours = (r: { path: string; body: string }) => r.path === '/hook' && JSON.parse(r.body).data?.record?.values?.name === 'Later';
    const mine = () => receiver.got.filter(ours);
    receiver.answer = (req): Answer => {
      if (!ours(req)) return { status: 204 };
      const n = mine().length;
      return n === 1 ? { status: 503, headers: { 'Retry-After': '2' } } : n === 2 ? { status: 302, headers: { Location: `${receiver.url}/elsewhere` } } : { status: 200 };
    };
    const hook = await webhook();
    await w.t.request.post(records()).set(w.editor.auth).send({ values: { name: 'Later' } }).expect(201);
    const got = await waitUntil('three attempts', () => (mine().length >= 3 ? mine() : null), 20000);
    assert.ok(got[1].at - got[0].at >= 1900, `Retry-After: 2 honoured (${got[1].at - got[0].at} ms)`);
    const [delivery] = await waitUntil('success', async () => ((await deliveries(hook.id))[0]?.status === 'succeeded' ? deliveries(hook.id) : null));
    assert.equal(delivery.attempt, 3);
    assert.equal(mine().length, 3, 'the redirect was not followed');
    assert.ok(!receiver.got.some((r) => r.path === '/elsewhere'), 'nothing reached the redirect target');
    await w.t.request.delete(w.api(`/webhooks/${hook.id}`)).set(w.admin.auth).expect(204);
  });

  it('reads at most 64 KB of an answer: an endless 200 still settles as a success at once', async () => {
    receiver.answer = () => ({ status: 200, endless: true });
    const hook = await webhook();
    await w.t.request.post(records()).set(w.editor.auth).send({ values: { name: 'Chatty' } }).expect(201);
    const [delivery] = await waitUntil('success', async () => ((await deliveries(hook.id))[0]?.status === 'succeeded' ? deliveries(hook.id) : null), 5000);
    assert.equal(delivery.response_code, 200);
    assert.ok(delivery.duration_ms < 5000, `${delivery.duration_ms} ms`);
    await w.t.request.delete(w.api(`/webhooks/${hook.id}`)).set(w.admin.auth).expect(204);
  });

  it('gives up on a receiver that does not answer after 10 s, and retries it', async function () {
    this.timeout(30000);
    receiver.answer = () => ({ status: 200, silent: true });
    const hook = await webhook();
    const sent = Date.now();
    await w.t.request.post(records()).set(w.editor.auth).send({ values: { name: 'Silence' } }).expect(201);
    const [delivery] = await waitUntil('the timed-out attempt', async () => ((await deliveries(hook.id))[0]?.attempt >= 1 ? deliveries(hook.id) : null), 20000);
    assert.equal(delivery.error, 'timed out after 10 s');
    assert.equal(delivery.response_code, null);
    assert.ok(delivery.duration_ms >= 9900 && delivery.duration_ms < 12000, `${delivery.duration_ms} ms`);
    assert.ok(Date.now() - sent >= 9900);
    assert.equal(delivery.status, 'pending', 'retried later');
    await w.t.request.delete(w.api(`/webhooks/${hook.id}`)).set(w.admin.auth).expect(204);
  });

  it('redelivers an event as a new delivery with the same webhook-id and body; 404 for another webhook\'s delivery', async () => {
    const hook = await webhook();
    const second = await webhook();
    await w.t.request.post(records()).set(w.editor.auth).send({ values: { name: 'Again' } }).expect(201);
    await waitUntil('both deliveries', () => receiver.got.length >= 2);
    const [first] = await waitUntil('the log', async () => ((await deliveries(hook.id))[0]?.status === 'succeeded' ? deliveries(hook.id) : null));
    const original = receiver.got.find((r) => r.headers['webhook-id'] === first.message_id)!;
    receiver.got.length = 0;
    const redelivered = await w.t.request.post(w.api(`/webhooks/${hook.id}/deliveries/${first.id}/redeliver`)).set(w.admin.auth).expect(202);
    assert.notEqual(redelivered.body.id, first.id);
    assert.equal(redelivered.body.message_id, first.message_id);
    assert.equal(redelivered.body.status, 'pending');
    const [again] = await waitUntil('the redelivery', () => (receiver.got.length ? receiver.got : null));
    assert.equal(again.headers['webhook-id'], first.message_id);
    assert.equal(again.body, original.body);
    new Verifier(hook.secret).verify(again.body, again.headers as Record<string, string>);
    assert.equal((await deliveries(hook.id)).length, 2);
    await w.t.request.post(w.api(`/webhooks/${second.id}/deliveries/${first.id}/redeliver`)).set(w.admin.auth).expect(404);
    await w.t.request.post(`/api/v1/workspaces/${w.otherWs}/webhooks/${hook.id}/deliveries/${first.id}/redeliver`).set(w.outsider.auth).expect(404);
    for (const id of [hook.id, second.id]) await w.t.request.delete(w.api(`/webhooks/${id}`)).set(w.admin.auth).expect(204);
  });

  it('answers a signed sample delivery that the reference library verifies, sending nothing', async () => {
    const hook = await webhook();
    const sample = (await w.t.request.post(w.api(`/webhooks/${hook.id}/sample`)).set(w.admin.auth).expect(200)).body;
    const verified = new Verifier(hook.secret).verify(sample.body, sample.headers) as Record<string, any>;
    assert.equal(verified.type, 'webhook.sample');
    assert.equal(sample.signature, sample.headers['webhook-signature']);
    assert.equal(sample.url, `${receiver.url}/hook`);
    await sleep(200);
    assert.equal(receiver.got.length, 0);
    await w.t.request.delete(w.api(`/webhooks/${hook.id}`)).set(w.admin.auth).expect(204);
  });
});
