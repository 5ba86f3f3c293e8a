import assert from 'node:assert/strict';
import { signedHeaders } from '../../../plugins/webhooks/public.ts';
import { waitUntil } from '../../fixtures/wait.ts';
import { automationWorld, type AutomationWorld } from './world.ts';

describe('automations: inbound hooks (POST /hooks/{token})', function () {
  this.timeout(60000);
  let w: AutomationWorld;

  before(async () => {
    w = await automationWorld({ config: { jobs: { pollingIntervalSeconds: 0.5 }, plugins: { automations: { options: { hookMaxBytes: 1024, hookRequestsPerMinute: 5 } } } } });
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
    // Another hook: this one's five posts a minute are spent.
    await w.t.request.post((await hook()).path).send(body).set('content-type', 'application/json').expect(202);
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
  });
});
