import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sign } from '@octokit/webhooks-methods';
import { waitUntil } from '../../fixtures/wait.ts';
import { automationWorld, type AutomationWorld } from './world.ts';

/**
 * `integration_event` triggers: a GitHub delivery (signed as GitHub signs it) to a connection starts the automations
 * that name its provider and event. The connection's token is one a loopback server speaking GitHub's `GET /user` knows.
 */
describe('automations: integration_event triggers', function () {
  this.timeout(60000);
  const TOKEN = 'github_pat_trigger0123456789';
  let w: AutomationWorld;
  let github: http.Server;
  /** What GitHub was asked to create: method, path and body of each POST. */
  const posted: Array<{ path: string; body: any }> = [];

  before(async () => {
    github = http.createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => (text += chunk));
      req.on('end', () => {
        const known = req.headers.authorization === `Bearer ${TOKEN}`;
        const answer = (status: number, body: object) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        };
        if (!known) return answer(401, { message: 'Bad credentials' });
        if (req.method === 'GET' && req.url === '/user') return answer(200, { login: 'octocat', id: 1 });
        if (req.method === 'POST' && req.url === '/repos/acme/missing/issues/1/comments') return answer(404, { message: 'Not Found' });
        if (req.method === 'POST' && /^\/repos\/acme\/site\/issues\/\d+\/comments$/.test(req.url ?? '')) {
          posted.push({ path: req.url!, body: JSON.parse(text) });
          return answer(201, { id: 99, html_url: `https://github.example/acme/site${req.url}` });
        }
        answer(404, { message: 'Not Found' });
      });
    });
    await new Promise<void>((resolve) => github.listen(0, '127.0.0.1', resolve));
    const apiUrl = `http://127.0.0.1:${(github.address() as AddressInfo).port}`;
    w = await automationWorld({ config: { jobs: { pollingIntervalSeconds: 0.5 }, plugins: { 'integration-github': { options: { apiUrl } } } } });
  });
  after(async () => {
    await w.t.stop();
    await new Promise((resolve) => github.close(resolve));
  });

  const connection = async (name: string) => (await w.t.request.post(w.api('/connections')).set(w.admin.auth).send({ provider: 'github', name, credentials: { token: TOKEN } }).expect(201)).body;
  const automation = (trigger: object, extra: object = {}) =>
    w.t.request.post(w.api('/automations')).set(w.admin.auth).send({
      name: 'From GitHub',
      database_id: w.db,
      enabled: true,
      trigger,
      actions: [{ type: 'create_record', database_id: w.logDb, values: { name: '{{trigger.integration.event}} #{{trigger.body.issue.number}} {{trigger.body.issue.title}}' } }],
      ...extra,
    });
  const deliver = async (c: { id: string; webhook_secret: string }, event: string, payload: object, id: string) => {
    const body = JSON.stringify(payload);
    return w.t.request.post(`/api/v1/integrations/github/webhook/${c.id}`).set({ 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': id, 'x-hub-signature-256': await sign(c.webhook_secret, body) }).send(body);
  };
  const logNames = async () => (await w.t.request.get(w.api(`/databases/${w.logDb}/records`)).set(w.admin.auth).expect(200)).body.data.map((r: { values: { name: string } }) => r.values.name).sort();
  const runsOf = async (id: string) => (await w.t.request.get(w.api(`/automations/${id}/runs`)).set(w.admin.auth).expect(200)).body.data;

  it('refuses an unknown provider, a connection that is not one of the provider, and conditions, at their pointers', async () => {
    const cases: Array<[object, object, string]> = [
      [{ type: 'integration_event', provider: 'nowhere', event: 'issues' }, {}, '/trigger/provider'],
      [{ type: 'integration_event', provider: 'github', event: 'issues', connection_id: crypto.randomUUID() }, {}, '/trigger/connection_id'],
      [{ type: 'integration_event', provider: 'github', event: 'Issues!' }, {}, '/trigger/event'],
      [{ type: 'integration_event', provider: 'github', event: 'issues' }, { conditions: { field: 'name', op: 'eq', value: 'x' } }, '/conditions'],
    ];
    for (const [trigger, extra, pointer] of cases) {
      const res = await automation(trigger, extra);
      assert.equal(res.status, 422, JSON.stringify(trigger));
      assert.ok(res.body.errors.some((e: { pointer: string }) => e.pointer === pointer), `${pointer} in ${JSON.stringify(res.body.errors)}`);
    }
  });

  it('runs once per delivery for its provider and event (and the events under it), narrowed to a connection when named', async () => {
    const ours = await connection('Ours');
    const other = await connection('Other');
    const anyIssue = (await automation({ type: 'integration_event', provider: 'github', event: 'issues' }).expect(201)).body;
    const onlyOurs = (await automation({ type: 'integration_event', provider: 'github', event: 'issues.opened', connection_id: ours.id }).expect(201)).body;

    const issue = (number: number, title: string) => ({ action: 'opened', issue: { number, title } });
    assert.equal((await deliver(ours, 'issues', issue(1, 'First'), 'g-1')).status, 202);
    assert.equal((await deliver(ours, 'issues', issue(1, 'First'), 'g-1')).status, 200);
    assert.equal((await deliver(other, 'issues', issue(2, 'Second'), 'g-2')).status, 202);
    assert.equal((await deliver(ours, 'push', { ref: 'refs/heads/main' }, 'g-3')).status, 202);

    const names = await waitUntil('the runs to write', async () => {
      const now = await logNames();
      return now.length >= 3 ? now : null;
    }, 20000);
    assert.deepEqual(names, ['issues.opened #1 First', 'issues.opened #1 First', 'issues.opened #2 Second']);
    await w.t.kernel.events.settle();
    assert.equal((await runsOf(anyIssue.id)).length, 2);
    const narrowed = await runsOf(onlyOurs.id);
    assert.equal(narrowed.length, 1);
    assert.equal(narrowed[0].trigger.type, 'integration_event');
  });

  it('acts through a connection: a GitHub comment on the issue a delivery opened, with its token; a refusal fails the step', async () => {
    const ours = await connection('Acting');
    const res = await w.t.request.post(w.api('/automations')).set(w.admin.auth).send({
      name: 'Thank the reporter',
      database_id: w.db,
      enabled: true,
      trigger: { type: 'integration_event', provider: 'github', event: 'issues.opened', connection_id: ours.id },
      actions: [{ type: 'github_comment', connection_id: ours.id, owner: 'acme', repo: '{{trigger.body.repository.name}}', issue_number: '{{trigger.body.issue.number}}', body: 'Thanks for "{{trigger.body.issue.title}}"!' }],
    });
    assert.equal(res.status, 422, 'placeholders where the schema wants an integer are refused at save');
    const made = await w.t.request.post(w.api('/automations')).set(w.admin.auth).send({
      name: 'Thank the reporter',
      database_id: w.db,
      enabled: true,
      trigger: { type: 'integration_event', provider: 'github', event: 'issues.opened', connection_id: ours.id },
      actions: [{ type: 'github_comment', connection_id: ours.id, owner: 'acme', repo: 'site', issue_number: 5, body: 'Thanks for "{{trigger.body.issue.title}}"!' }],
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const unknown = await w.t.request.post(w.api('/automations')).set(w.admin.auth).send({
      name: 'Nowhere',
      database_id: w.db,
      enabled: true,
      trigger: { type: 'integration_event', provider: 'github', event: 'issues' },
      actions: [{ type: 'github_comment', connection_id: crypto.randomUUID(), owner: 'acme', repo: 'site', issue_number: 5, body: 'x' }],
    });
    assert.equal(unknown.status, 422);
    assert.deepEqual(unknown.body.errors.map((e: { pointer: string }) => e.pointer), ['/actions/0/connection_id']);

    assert.equal((await deliver(ours, 'issues', { action: 'opened', issue: { number: 5, title: 'Broken link' } }, 'act-1')).status, 202);
    const run = await waitUntil('the comment run', async () => {
      const runs = await runsOf(made.body.id);
      return runs.find((r: { status: string }) => r.status === 'succeeded' || r.status === 'failed') ?? null;
    }, 20000);
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.deepEqual(posted, [{ path: '/repos/acme/site/issues/5/comments', body: { body: 'Thanks for "Broken link"!' } }]);

    const failing = await w.t.request.post(w.api('/automations')).set(w.admin.auth).send({
      name: 'Comment on a missing repo',
      database_id: w.db,
      enabled: true,
      trigger: { type: 'integration_event', provider: 'github', event: 'push', connection_id: ours.id },
      actions: [{ type: 'github_comment', connection_id: ours.id, owner: 'acme', repo: 'missing', issue_number: 1, body: 'x' }],
    }).expect(201);
    assert.equal((await deliver(ours, 'push', { ref: 'refs/heads/main' }, 'act-2')).status, 202);
    const failed = await waitUntil('the failing run', async () => {
      const runs = await runsOf(failing.body.id);
      return runs.find((r: { status: string }) => r.status === 'failed') ?? null;
    }, 20000);
    const detail = JSON.stringify((await w.t.request.get(w.api(`/runs/${failed.id}`)).set(w.admin.auth)).body);
    assert.match(detail, /GitHub refused to comment \(HTTP 404: Not Found\)/);
    assert.doesNotMatch(detail, new RegExp(TOKEN));
  });

  it('travels in a pack with its connection said by provider and name, never a credential, and lands on the target\'s own', async () => {
    const source = await connection('Pack source');
    await automation(
      { type: 'integration_event', provider: 'github', event: 'issues', connection_id: source.id },
      { name: 'Packed', actions: [{ type: 'github_create_issue', connection_id: source.id, owner: 'acme', repo: 'site', title: 'Follow up' }] },
    ).expect(201);
    const pack = (await w.t.request.post(w.api('/packs/export')).set(w.admin.auth).send({ database_ids: [w.db, w.logDb] }).expect(200)).body;
    const packed = pack.resources.automation.find((a: { name: string }) => a.name === 'Packed');
    const ref = packed.trigger.connection_id;
    assert.deepEqual(pack.resources.connection.find((c: { ref: string }) => c.ref === ref), { ref, provider: 'github', name: 'Pack source' });
    assert.equal(packed.actions[0].connection_id, ref);
    assert.doesNotMatch(JSON.stringify(pack), new RegExp(`${TOKEN}|${source.webhook_secret}|${source.id}`));

    const target = (await w.t.request.post('/api/v1/workspaces').set(w.admin.auth).send({ name: 'Target' }).expect(201)).body.id;
    const space = (await w.t.request.post(`/api/v1/workspaces/${target}/spaces`).set(w.admin.auth).send({ name: 'S' }).expect(201)).body.id;
    const install = () => w.t.request.post(`/api/v1/workspaces/${target}/packs/install`).set(w.admin.auth).send({ pack, space_id: space });
    const refused = await install().expect(422);
    const at = pack.resources.connection.findIndex((c: { ref: string }) => c.ref === ref);
    assert.ok(refused.body.errors.some((e: { pointer: string; detail: string }) => e.pointer === `/pack/resources/connection/${at}` && /connect github/.test(e.detail)), JSON.stringify(refused.body.errors));
    assert.deepEqual((await w.t.request.get(`/api/v1/workspaces/${target}/automations`).set(w.admin.auth).expect(200)).body.data, []);

    const theirs = (await w.t.request.post(`/api/v1/workspaces/${target}/connections`).set(w.admin.auth).send({ provider: 'github', name: 'Their GitHub', credentials: { token: TOKEN } }).expect(201)).body;
    await install().expect(201);
    const installed = (await w.t.request.get(`/api/v1/workspaces/${target}/automations`).set(w.admin.auth).expect(200)).body.data.find((a: { name: string }) => a.name === 'Packed');
    assert.equal(installed.trigger.connection_id, theirs.id);
    assert.equal(installed.actions[0].connection_id, theirs.id);
  });
});
