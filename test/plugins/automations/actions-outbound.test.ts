import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { signUp, type SignedUpUser } from '../../../core/testing.ts';
import { waitUntil } from '../../fixtures/wait.ts';
import { automationWorld, type AutomationWorld } from './world.ts';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

describe('automations: send_webhook, send_email, notify', function () {
  this.timeout(60000);
  let w: AutomationWorld;
  let receiver: http.Server;
  let target: string;
  const received: Received[] = [];
  let guest: SignedUpUser;
  let leaver: SignedUpUser;

  before(async () => {
    w = await automationWorld({ config: { jobs: { pollingIntervalSeconds: 0.5 }, plugins: { webhooks: { options: { allowPrivateNetworks: true } } } } });
    receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await w.t.request.post(w.api(`/databases/${w.db}/fields`)).set(w.admin.auth).send({ name: 'Owner', api_name: 'owner', type: 'user' }).expect(201);
    guest = await signUp(w.t, { name: 'Gus Guest' });
    // A guest of no space: a member of the workspace who cannot read the database.
    await w.t.db('workspace_members').insert({ workspace_id: w.ws, user_id: guest.id, role: 'guest', space_ids: [] });
    leaver = await signUp(w.t, { name: 'Lea Leaver' });
    await w.t.db('workspace_members').insert({ workspace_id: w.ws, user_id: leaver.id, role: 'editor' });
  });
  after(async () => {
    await w.t.stop();
    await new Promise((resolve) => receiver.close(resolve));
  });

  const create = (body: Record<string, unknown>) => w.t.request.post(w.api('/automations')).set(w.admin.auth).send({ name: 'A', database_id: w.db, enabled: true, ...body });
  const record = async (values: Record<string, unknown>) => (await w.t.request.post(w.api(`/databases/${w.db}/records`)).set(w.admin.auth).send({ values }).expect(201)).body;
  const runs = async (id: string) => (await w.t.request.get(w.api(`/automations/${id}/runs`)).set(w.admin.auth).expect(200)).body.data as Array<Record<string, any>>;
  const finishedRun = async (id: string) => {
    await waitUntil('a finished run', async () => (await runs(id)).some((r) => !['queued', 'running'].includes(r.status)), 20000);
    return (await runs(id))[0];
  };
  const dryRun = async (id: string, recordId: string) => (await w.t.request.post(w.api(`/automations/${id}/dry-run`)).set(w.admin.auth).send({ record_id: recordId }).expect(200)).body;
  const disable = (id: string) => w.t.request.patch(w.api(`/automations/${id}`)).set(w.admin.auth).send({ enabled: false }).expect(200);
  const refused = async (actions: unknown[], pointer: string) => {
    const res = await create({ trigger: { type: 'record_created' }, actions }).expect(422);
    assert.ok(res.body.errors.some((e: { pointer: string }) => e.pointer === pointer), `${JSON.stringify(actions)} → ${JSON.stringify(res.body.errors)}`);
  };

  it('send_webhook posts the configured body with placeholders filled, or the default body; a dry run sends nothing', async () => {
    const custom = (await create({ trigger: { type: 'record_created' }, actions: [{ type: 'send_webhook', url: target, body: { deal: '{{record.name}}', amount: '{{record.amount}}', tags: ['x', 'worth {{record.amount}}'] } }] }).expect(201)).body;
    const r = await record({ name: 'Acme', amount: 7 });
    const run = await finishedRun(custom.id);
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.equal(run.steps[0].output.status, 204);
    assert.equal(typeof run.steps[0].output.duration_ms, 'number');
    assert.deepEqual(received.at(-1)!.body, { deal: 'Acme', amount: 7, tags: ['x', 'worth 7'] });
    assert.equal(received.at(-1)!.headers['content-type'], 'application/json');
    await disable(custom.id);

    const plain = (await create({ trigger: { type: 'record_created' }, actions: [{ type: 'send_webhook', url: target }] }).expect(201)).body;
    const before = received.length;
    const dry = await dryRun(plain.id, r.id);
    assert.equal(dry.steps[0].would.url, target);
    assert.equal(dry.steps[0].would.body.record.name, 'Acme');
    assert.equal(received.length, before, 'a dry run sends nothing');
    const r2 = await record({ name: 'Bolt', amount: 3 });
    const run2 = await finishedRun(plain.id);
    assert.equal(run2.status, 'succeeded', JSON.stringify(run2));
    const sent = received.at(-1)!.body as Record<string, any>;
    assert.equal(sent.automation_id, plain.id);
    assert.equal(sent.run_id, run2.id);
    assert.equal(sent.trigger.type, 'record_created');
    assert.equal(sent.trigger.record_id, r2.id);
    assert.equal(sent.record.name, 'Bolt');
    await disable(plain.id);
  });

  it('send_webhook refuses a URL that is not http(s) at save, storing nothing', async () => {
    const count = async () => Number((await w.t.db('automations').count({ n: '*' }))[0].n);
    const n = await count();
    await refused([{ type: 'send_webhook', url: 'ftp://example.com/x' }], '/actions/0/url');
    await refused([{ type: 'send_webhook', url: 'not a url' }], '/actions/0/url');
    await refused([{ type: 'update_record', values: {} }, { type: 'send_webhook', url: 'https://user:pw@example.com/' }], '/actions/1/url');
    assert.equal(await count(), n);
  });

  it('send_email queues one message per recipient through mail; a dry run queues nothing; bad addresses are refused', async () => {
    await refused([{ type: 'send_email', to: 'nobody', subject: 's', text: 't' }], '/actions/0/to');
    await refused([{ type: 'send_email', to: Array.from({ length: 51 }, (_, i) => `u${i}@example.com`), subject: 's', text: 't' }], '/actions/0/to');
    await refused([{ type: 'send_email', to: 'a@example.com', text: 't' }], '/actions/0/subject');

    const a = (await create({ trigger: { type: 'record_created' }, actions: [{ type: 'send_email', to: ['ann@example.com', 'bob@example.com'], subject: 'Deal {{record.name}}', text: 'Worth {{record.amount}}' }] }).expect(201)).body;
    const existing = await record({ name: 'Dry', amount: 1 });
    assert.deepEqual((await finishedRun(a.id)).steps[0].output, { sent: 2 });
    const outbox = () => w.t.db('mail_outbox').whereLike('to', '%@example.com').orderBy('to').select('to', 'subject', 'text');
    await waitUntil('both messages in the outbox', async () => (await outbox()).length === 2);
    const dry = await dryRun(a.id, existing.id);
    assert.deepEqual(dry.steps[0].would, { to: ['ann@example.com', 'bob@example.com'], subject: 'Deal Dry', text: 'Worth 1' });
    await disable(a.id);
    const b = (await create({ trigger: { type: 'record_created' }, actions: [{ type: 'send_email', to: 'cy@example.com', subject: 'Deal {{record.name}}', text: 'Worth {{record.amount}}' }] }).expect(201)).body;
    await dryRun(b.id, existing.id);
    await record({ name: 'Wet', amount: 2 });
    const run = await finishedRun(b.id);
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.deepEqual(run.steps[0].output, { sent: 1 });
    await waitUntil('the message in the outbox', async () => (await outbox()).length === 3);
    // The dry runs were asked first: had they queued messages, the same worker would have stored them by now.
    assert.deepEqual(await outbox(), [
      { to: 'ann@example.com', subject: 'Deal Dry', text: 'Worth 1' },
      { to: 'bob@example.com', subject: 'Deal Dry', text: 'Worth 1' },
      { to: 'cy@example.com', subject: 'Deal Wet', text: 'Worth 2' },
    ]);
    await disable(b.id);
  });

  it('notify reaches the named members who can read the database and says how many, never who was skipped', async () => {
    await refused([{ type: 'notify', user_ids: ['not-a-uuid'], text: 'x' }], '/actions/0/user_ids/0');
    await refused([{ type: 'notify', user_ids: [w.editor.id, w.outsider.id], text: 'x' }], '/actions/0/user_ids/1');
    await refused([{ type: 'notify', field: 'stage', text: 'x' }], '/actions/0/field');
    await refused([{ type: 'notify', text: 'x' }], '/actions/0');
    await refused([{ type: 'notify', field: 'owner', user_ids: [w.editor.id], text: 'x' }], '/actions/0');

    const a = (await create({ trigger: { type: 'record_created' }, actions: [{ type: 'notify', user_ids: [w.editor.id, guest.id, leaver.id], text: 'New deal {{record.name}}' }] }).expect(201)).body;
    await w.t.request.delete(w.api(`/members/${leaver.id}`)).set(w.admin.auth).expect(204);
    const r = await record({ name: 'Crane' });
    const run = await finishedRun(a.id);
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.deepEqual(run.steps[0].output, { notified: 1 });
    const rows = await w.t.db('notifications').where({ type: 'automation', subject_id: a.id }).select('user_id', 'record_id', 'data');
    assert.deepEqual(rows, [{ user_id: w.editor.id, record_id: r.id, data: { text: 'New deal Crane' } }]);
    await disable(a.id);
  });

  it("notify with a user field reaches the record's user", async () => {
    const a = (await create({ trigger: { type: 'record_created' }, actions: [{ type: 'notify', field: 'owner', text: 'Yours: {{record.name}}' }] }).expect(201)).body;
    await record({ name: 'Derrick', owner: w.editor.id });
    const run = await finishedRun(a.id);
    assert.deepEqual(run.steps[0].output, { notified: 1 }, JSON.stringify(run));
    const rows = await w.t.db('notifications').where({ type: 'automation', subject_id: a.id }).select('user_id', 'data');
    assert.deepEqual(rows, [{ user_id: w.editor.id, data: { text: 'Yours: Derrick' } }]);
    await disable(a.id);
  });
});

describe('automations: send_webhook without private networks', function () {
  this.timeout(60000);
  let w: AutomationWorld;
  before(async () => {
    w = await automationWorld();
  });
  after(() => w.t.stop());

  it('refuses a loopback or private address literal at save (422 at /actions/i/url)', async () => {
    for (const url of ['http://127.0.0.1:8080/x', 'http://10.1.2.3/x', 'http://[::1]/x']) {
      const res = await w.t.request.post(w.api('/automations')).set(w.admin.auth).send({ name: 'A', database_id: w.db, trigger: { type: 'record_created' }, actions: [{ type: 'send_webhook', url }] }).expect(422);
      assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/actions/0/url'], url);
    }
    assert.equal(Number((await w.t.db('automations').count({ n: '*' }))[0].n), 0);
  });
});
