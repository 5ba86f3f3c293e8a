import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sign } from '@octokit/webhooks-methods';
import { createWorkspace, joinWorkspace, recordedEvents, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import { waitUntil } from '../../fixtures/wait.ts';
import { startReceiver } from '../webhooks/receiver.ts';

/**
 * GitHub end to end: a connection whose token a loopback server speaking GitHub's `GET /user` knows, then deliveries
 * signed as GitHub signs them (`@octokit/webhooks-methods`) posted to the connection's receiver.
 */
describe('integration-github: connecting and receiving', function () {
  let t: TestKernel;
  let github: http.Server;
  let admin: SignedUpUser;
  let ws: string;
  const TOKEN = 'github_pat_matrix0123456789';

  before(async () => {
    github = http.createServer((req, res) => {
      const known = req.url === '/user' && req.headers.authorization === `Bearer ${TOKEN}`;
      res.writeHead(known ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(known ? { login: 'octocat', id: 583231 } : { message: 'Bad credentials' }));
    });
    await new Promise<void>((resolve) => github.listen(0, '127.0.0.1', resolve));
    const apiUrl = `http://127.0.0.1:${(github.address() as AddressInfo).port}`;
    t = await startTestKernel({ config: { plugins: { 'integration-github': { options: { apiUrl } }, webhooks: { options: { allowPrivateNetworks: true, maxDelayMs: 0 } } } } });
    admin = await signUp(t);
    ws = (await createWorkspace(t, admin)).id;
  });
  after(async () => {
    await t.stop();
    await new Promise((resolve) => github.close(resolve));
  });

  it('connects with a token GitHub knows, and refuses one it does not with its reason', async () => {
    const refused = await t.request.post(`/api/v1/workspaces/${ws}/connections`).set(admin.auth).send({ provider: 'github', name: 'Wrong', credentials: { token: 'github_pat_nobody' } });
    assert.equal(refused.status, 422);
    assert.match(refused.body.detail, /Bad credentials/);
    assert.doesNotMatch(refused.text, /github_pat_nobody/);
    const made = await t.request.post(`/api/v1/workspaces/${ws}/connections`).set(admin.auth).send({ provider: 'github', name: 'Ours', credentials: { token: TOKEN } });
    assert.equal(made.status, 201);
    assert.deepEqual(made.body.account, { id: '583231', name: 'octocat' });
    assert.match(made.body.webhook_url, new RegExp(`/api/v1/integrations/github/webhook/${made.body.id}$`));
  });

  it('accepts a delivery signed as GitHub signs it once, and refuses a forged one', async () => {
    const made = await t.request.post(`/api/v1/workspaces/${ws}/connections`).set(admin.auth).send({ provider: 'github', name: 'Hooks', credentials: { token: TOKEN } });
    const { id, webhook_secret: secret } = made.body;
    const body = JSON.stringify({ action: 'opened', issue: { number: 7, title: 'Ünïcode ✓' } });
    const headers = { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958', 'x-hub-signature-256': await sign(secret, body) };
    const post = (sent: string, h: Record<string, string>) => t.request.post(`/api/v1/integrations/github/webhook/${id}`).set(h).send(sent);

    assert.equal((await post(body, headers)).status, 202);
    assert.equal((await post(body, headers)).status, 200);
    assert.equal((await post(body.replace('7', '8'), { ...headers, 'x-github-delivery': 'another' })).status, 401);
    assert.equal((await post(body, { ...headers, 'x-github-delivery': 'forged', 'x-hub-signature-256': await sign('not-the-secret', body) })).status, 401);
    const { 'x-hub-signature-256': _dropped, ...unsigned } = headers;
    assert.equal((await post(body, { ...unsigned, 'x-github-delivery': 'unsigned' })).status, 401);

    const rows = await t.db('integration_deliveries').where({ connection_id: id });
    assert.equal(rows.length, 1);
    assert.equal(rows[0].event, 'issues.opened');
    await t.kernel.events.settle();
    const events = (await recordedEvents(t, { name: 'integration.github.issues.opened' })).filter((e) => e.payload.connection_id === id);
    assert.equal(events.length, 1);
    assert.equal(events[0].payload.payload.issue.title, 'Ünïcode ✓');
  });

  it("deletes the connections a member made when they are erased, with their inbox: their token acts no more", async () => {
    const member = await signUp(t, { name: 'Connie Connector' });
    await joinWorkspace(t, admin, ws, member, 'creator');
    const made = await t.request.post(`/api/v1/workspaces/${ws}/connections`).set(member.auth).send({ provider: 'github', name: 'Theirs', credentials: { token: TOKEN } });
    assert.equal(made.status, 201);
    const kept = await t.request.post(`/api/v1/workspaces/${ws}/connections`).set(admin.auth).send({ provider: 'github', name: 'The admin one', credentials: { token: TOKEN } });

    const receipt = await t.request.post(`/api/v1/workspaces/${ws}/members/${member.id}/erase`).set(admin.auth).send({ confirm: member.email });
    assert.equal(receipt.status, 200);
    assert.deepEqual(receipt.body.reports.find((r: { kind: string }) => r.kind === 'connections'), { kind: 'connections', workspace_id: ws, deleted: 1, pseudonymised: 0, retained: [] });
    assert.equal((await t.request.get(`/api/v1/workspaces/${ws}/connections/${made.body.id}`).set(admin.auth)).status, 404);
    const body = '{}';
    const signed = { 'content-type': 'application/json', 'x-github-event': 'ping', 'x-hub-signature-256': await sign(made.body.webhook_secret, body) };
    assert.equal((await t.request.post(`/api/v1/integrations/github/webhook/${made.body.id}`).set(signed).send(body)).status, 404);
    assert.equal((await t.request.get(`/api/v1/workspaces/${ws}/connections/${kept.body.id}`).set(admin.auth)).status, 200);
  });

  it('hands a delivery on to an outbound webhook subscribed to its event, as a signed Standard Webhooks post', async () => {
    const receiver = await startReceiver();
    try {
      const made = await t.request.post(`/api/v1/workspaces/${ws}/connections`).set(admin.auth).send({ provider: 'github', name: 'Forwarded', credentials: { token: TOKEN } }).expect(201);
      await t.request.post(`/api/v1/workspaces/${ws}/webhooks`).set(admin.auth).send({ url: `${receiver.url}/forward`, events: ['integration.github.issues.opened'] }).expect(201);
      const post = async (event: string, payload: object, id: string) => {
        const body = JSON.stringify(payload);
        const headers = { 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': id, 'x-hub-signature-256': await sign(made.body.webhook_secret, body) };
        return t.request.post(`/api/v1/integrations/github/webhook/${made.body.id}`).set(headers).send(body).expect(202);
      };
      await post('push', { ref: 'refs/heads/main' }, 'fwd-push');
      await post('issues', { action: 'opened', issue: { number: 3, title: 'Forward me' } }, 'fwd-issue');
      const got = await waitUntil('the forwarded delivery', async () => (receiver.got.length > 0 ? receiver.got : null), 20000);
      await t.kernel.events.settle();
      assert.equal(receiver.got.length, 1, 'only the subscribed event');
      const forwarded = JSON.parse(got[0].body);
      assert.equal(forwarded.type, 'integration.github.issues.opened');
      assert.equal(forwarded.data.payload.issue.title, 'Forward me');
      assert.ok(got[0].headers['webhook-signature']);
    } finally {
      await receiver.close();
    }
  });
});
