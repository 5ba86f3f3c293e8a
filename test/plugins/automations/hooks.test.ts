import assert from 'node:assert/strict';
import { signedHeaders } from '../../../plugins/webhooks/public.ts';
import { waitUntil } from '../../fixtures/wait.ts';
import { automationWorld, type AutomationWorld } from './world.ts';

describe('automations: inbound hooks (POST /hooks/{token})', function () {
  this.timeout(60000);
  let w: AutomationWorld;

  before(async () => {
    // trustProxy: tests post as several client addresses through X-Forwarded-For.
    w = await automationWorld({ config: { http: { trustProxy: true }, jobs: { pollingIntervalSeconds: 0.5 }, plugins: { automations: { options: { hookMaxBytes: 1024, hookRequestsPerMinute: 5 } } } } });
  });
  after(() => w.t.stop());

  /** An enabled inbound automation that writes the posted order into Log; answers its hook path and secret. */
  const hook = async () => {
    const res = await w.t.request.post(w.api('/automations')).set(w.admin.auth).send({ name: 'In', database_id: w.db, enabled: true, trigger: { type: 'inbound_webhook' }, actions: [{ type: 'create_record', database_id: w.logDb, values: { name: 'Order {{trigger.body.order.id}}' } }] }).expect(201);
    return { id: res.body.id as string, path: new URL(res.body.hook_url).pathname, secret: res.body.hook_secret as string };
  };
  const runCount = async () => Number((await w.t.db('automation_runs').count({ n: '*' }))[0].n);
  const logNames = async () => (await w.t.request.get(w.api(`/databases/${w.logDb}/records`)).set(w.admin.auth).expect(200)).body.data.map((r: { values: { name: string } }) => r.values.name);

  it('answers 202 with a run that reads the body through {{trigger.body…}}', async () => {
    const h = await hook();
    const res = await w.t.request.post(h.path).send({ order: { id: 'A-1' } }).expect(202);
    const run = await waitUntil('the run to finish', async () => {
      const r = (await w.t.request.get(w.api(`/runs/${res.body.run_id}`)).set(w.admin.auth).expect(200)).body;
      return r.status === 'succeeded' || r.status === 'failed' ? r : null;
    }, 20000);
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.deepEqual(run.trigger, { type: 'inbound_webhook', record_id: null, event_id: null });
    assert.ok((await logNames()).includes('Order A-1'));
  });

  it('a rotated token and a disabled automation answer 404 at once, storing no run', async () => {
    const h = await hook();
    const rotated = await w.t.request.post(w.api(`/automations/${h.id}/rotate-hook`)).set(w.admin.auth).expect(200);
    const before = await runCount();
    await w.t.request.post(h.path).send({}).expect(404);
    const fresh = new URL(rotated.body.hook_url).pathname;
    await w.t.request.patch(w.api(`/automations/${h.id}`)).set(w.admin.auth).send({ enabled: false }).expect(200);
    const disabled = await w.t.request.post(fresh).send({}).expect(404);
    assert.equal(disabled.body.status, 404);
    await w.t.request.post('/api/v1/hooks/not-a-token-at-all-000').send({}).expect(404);
    assert.equal(await runCount(), before);
  });

  it('checks a signed post over its exact bytes: good → 202, wrong secret, altered body or old timestamp → 401; unsigned → 202', async () => {
    const h = await hook();
    const body = '{"order":{"id":"S-1"}}';
    const post = (headers: Record<string, string>, payload = body) => w.t.request.post(h.path).set({ 'content-type': 'application/json', ...headers }).send(payload);
    await post(signedHeaders(h.secret, 'msg_1', body)).expect(202);
    const before = await runCount();
    const wrong = await post(signedHeaders(`whsec_${Buffer.alloc(32).toString('base64')}`, 'msg_2', body)).expect(401);
    assert.equal(wrong.body.code, 'bad_signature');
    await post(signedHeaders(h.secret, 'msg_3', body), '{"order":{"id":"S-2"}}').expect(401);
    await post(signedHeaders(h.secret, 'msg_4', body, Date.now() - 10 * 60 * 1000)).expect(401);
    await post({ 'webhook-id': 'msg_5' }).expect(401);
    assert.equal(await runCount(), before);
  });

  it('answers a signed post received again (a replay, or a retry with a new timestamp) with its first run, started once', async () => {
    const h = await hook();
    const body = '{"order":{"id":"R-1"}}';
    const post = (headers: Record<string, string>) => w.t.request.post(h.path).set(headers).send(body);
    const signed = signedHeaders(h.secret, 'msg_replayed', body);
    const first = await post(signed).expect(202);
    const before = await runCount();
    const replayed = await post(signed).expect(200);
    assert.deepEqual(replayed.body, { run_id: first.body.run_id });
    const retried = await post(signedHeaders(h.secret, 'msg_replayed', body, Date.now() + 2000)).expect(200);
    assert.equal(retried.body.run_id, first.body.run_id);
    assert.equal(await runCount(), before, 'no run started again');
    // Once the first post's timestamp has left the window, its replay fails the timestamp check, and a fresh post with the id is a new message.
    const stale = await post(signedHeaders(h.secret, 'msg_replayed', body, Date.now() - 6 * 60 * 1000)).expect(401);
    assert.equal(stale.body.code, 'bad_signature');
    await w.t.db('automation_hook_seen').where({ webhook_id: 'msg_replayed' }).update({ expires_at: new Date(Date.now() - 1000) });
    const later = await post(signedHeaders(h.secret, 'msg_replayed', body)).expect(202);
    assert.notEqual(later.body.run_id, first.body.run_id);
    // The same id on another hook is another sender's message.
    const other = await hook();
    await w.t.request.post(other.path).set(signedHeaders(other.secret, 'msg_replayed', body)).send(body).expect(202);
  });

  it('counts bad signatures per client address, apart from signed and unsigned posts: a flood slows the forger, never the signer', async () => {
    const h = await hook();
    const body = '{"order":{"id":"F-1"}}';
    const post = (headers: Record<string, string>, from: string) => w.t.request.post(h.path).set({ ...headers, 'x-forwarded-for': from }).send(body);
    const forged = signedHeaders(`whsec_${Buffer.alloc(32).toString('base64')}`, 'msg_forged', body);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await post(forged, '203.0.113.9')).status);
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429]);
    assert.equal((await post(forged, '198.51.100.7')).status, 401, 'another address is still told why');
    // The owner's signed posts go through, even from the flooding address.
    await post(signedHeaders(h.secret, 'msg_owner_1', body), '203.0.113.9').expect(202);
    // Unsigned posts spend a budget of their own, not the signer's.
    for (let i = 0; i < 5; i++) await post({ 'content-type': 'application/json' }, '192.0.2.1').expect(202);
    const limited = await post({ 'content-type': 'application/json' }, '192.0.2.2').expect(429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    await post(signedHeaders(h.secret, 'msg_owner_2', body), '192.0.2.3').expect(202);
  });

  it('refuses a body over the cap (413), not JSON (415), and posts past the per-token rate (429 with Retry-After), storing nothing', async () => {
    const h = await hook();
    const before = await runCount();
    await w.t.request.post(h.path).send({ big: 'x'.repeat(2000) }).expect(413);
    await w.t.request.post(h.path).set('content-type', 'text/plain').send('hello').expect(415);
    assert.equal(await runCount(), before);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await w.t.request.post(h.path).send({ i })).status);
    assert.deepEqual(statuses, [202, 202, 202, 202, 202, 429]);
    const limited = await w.t.request.post(h.path).send({}).expect(429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal(await runCount(), before + 5);
    const signed = signedHeaders(h.secret, 'msg_signed_budget', '{}');
    await w.t.request.post(h.path).set(signed).send('{}').expect(202);
  });
});
