import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inTransaction } from '../../../core/db.ts';
import { definePlugin } from '../../../core/plugin.ts';
import { keyFromText, SecretBox } from '../../../core/secret-box.ts';
import { createWorkspace, joinWorkspace, recordedEvents, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import { sealContext } from '../../../plugins/integrations/connections.service.ts';
import type { IntegrationProvider } from '../../../plugins/integrations/public.ts';
import system from '../../../plugins/system/index.ts';
import auth from '../../../plugins/auth/index.ts';
import workspaces from '../../../plugins/workspaces/index.ts';
import integrations from '../../../plugins/integrations/index.ts';

/**
 * "Echo", a provider of this test's own, speaks a small API on loopback: `GET /me` answers the account of a key it
 * knows. Its deliveries carry `x-echo-signature: <hex HMAC-SHA256 of the body>`, `x-echo-delivery` and `x-echo-event`.
 */
const KNOWN_KEYS = new Map([['good-key', { id: '42', name: 'Echo account' }]]);

function echoProvider(apiUrl: () => string): IntegrationProvider {
  return {
    id: 'echo',
    name: 'Echo',
    categories: ['chat'],
    auth: { type: 'api_key', fields: [{ name: 'key', label: 'API key', secret: true }] },
    signsWithSharedSecret: true,
    events: ['thing'],
    async test(credentials) {
      const res = await fetch(`${apiUrl()}/me`, { headers: { authorization: `Key ${credentials.key}` } });
      if (res.status !== 200) return { ok: false, detail: `Echo said ${res.status}: ${(await res.json()).error}` };
      const me = await res.json();
      return { ok: true, detail: `Signed in as ${me.name}`, account: me };
    },
    verifyWebhook({ rawBody, headers, secret }) {
      const sent = headers['x-echo-signature'];
      if (typeof sent !== 'string' || !secret) return { refused: 'The x-echo-signature header is missing.' };
      if (sent !== createHmac('sha256', secret).update(rawBody).digest('hex')) return { refused: 'The x-echo-signature does not match the body.' };
      return { deliveryId: (headers['x-echo-delivery'] as string | undefined) ?? null, event: String(headers['x-echo-event'] ?? 'thing'), payload: JSON.parse(rawBody.toString('utf8')) };
    },
  };
}

describe('integrations: connections and the inbox', function () {
  let t: TestKernel;
  let api: http.Server;
  let apiUrl = '';
  let calls = 0;
  let owner: SignedUpUser;
  let creator: SignedUpUser;
  let editor: SignedUpUser;
  let ws: string;

  before(async () => {
    api = http.createServer((req, res) => {
      calls++;
      const key = (req.headers.authorization ?? '').replace(/^Key /, '');
      const account = KNOWN_KEYS.get(key);
      res.writeHead(account ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(account ?? { error: 'unknown key' }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const echo = definePlugin({
      id: 'integration-echo',
      version: '1.0.0',
      kernel: '^1.0.0',
      dependsOn: { integrations: '^1.0.0' },
      register(ctx) {
        ctx.hooksOf('integrations.providers').providers.tap('integration-echo', (list) => [...list, echoProvider(() => apiUrl)]);
      },
    });
    t = await startTestKernel({ plugins: [system, auth, workspaces, integrations, echo] });
    owner = await signUp(t);
    creator = await signUp(t);
    editor = await signUp(t);
    ws = (await createWorkspace(t, owner)).id;
    await joinWorkspace(t, owner, ws, creator, 'creator');
    await joinWorkspace(t, owner, ws, editor, 'editor');
  });
  after(async () => {
    await t.stop();
    await new Promise((resolve) => api.close(resolve));
  });

  const connect = (by: SignedUpUser, body: object) => t.request.post(`/api/v1/workspaces/${ws}/connections`).set(by.auth).send(body);
  const deliver = (provider: string, id: string, body: string, headers: Record<string, string>) =>
    t.request.post(`/api/v1/integrations/${provider}/webhook/${id}`).set({ 'content-type': 'application/json', ...headers }).send(body);
  const signed = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');
  const stored = async () => Number((await t.db('integration_connections').count({ n: '*' }))[0].n);
  const inbox = async (connection: string) => Number((await t.db('integration_deliveries').where({ connection_id: connection }).count({ n: '*' }))[0].n);

  it('lists the providers of the enabled plugins, with how they connect', async () => {
    const res = await t.request.get('/api/v1/integrations').set(editor.auth);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, [
      { id: 'echo', name: 'Echo', categories: ['chat'], auth: { type: 'api_key', fields: [{ name: 'key', label: 'API key', secret: true }] }, capabilities: ['webhooks'], events: ['thing'], configured: true },
    ]);
    assert.equal((await t.request.get('/api/v1/integrations')).status, 401);
  });

  it('tests an API key with the provider first: a refused one is a 422 with its reason, and nothing is stored', async () => {
    const before = await stored();
    const res = await connect(creator, { provider: 'echo', name: 'Bad', credentials: { key: 'wrong-key' } });
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'connection_failed');
    assert.match(res.body.detail, /Echo said 401: unknown key/);
    assert.equal(res.body.errors[0].pointer, '/credentials');
    assert.doesNotMatch(JSON.stringify(res.body), /wrong-key/);
    assert.equal(await stored(), before);
  });

  it('refuses a missing or unknown credential, an unknown provider and an unwanted secret at their pointers, asking no provider', async () => {
    const asked = calls;
    const cases: Array<[object, string[]]> = [
      [{ provider: 'echo', name: 'x' }, ['/credentials/key']],
      [{ provider: 'echo', name: 'x', credentials: { key: 'good-key', extra: 'y' } }, ['/credentials/extra']],
      [{ provider: 'nowhere', name: 'x' }, ['/provider']],
      [{ provider: 'echo', name: 'x', credentials: { key: '' } }, ['/credentials/key']],
      [{ provider: 'echo', name: '', credentials: { key: 'good-key' } }, ['/name']],
      [{ provider: 'echo', name: 'x', credentials: { key: 'good-key' }, webhook_secret: 'short' }, ['/webhook_secret']],
    ];
    for (const [body, pointers] of cases) {
      const res = await connect(creator, body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), pointers, JSON.stringify(body));
    }
    assert.equal(calls, asked);
    assert.equal((await connect(editor, { provider: 'echo', name: 'x', credentials: { key: 'good-key' } })).status, 403);
  });

  it('stores a tested connection sealed: the signing secret is shown once, the credentials never', async () => {
    const res = await connect(creator, { provider: 'echo', name: 'Ours', credentials: { key: 'good-key' } });
    assert.equal(res.status, 201);
    assert.equal(res.headers['cache-control'], 'no-store');
    const { id, webhook_secret: secret } = res.body;
    assert.match(secret, /^whsec_[0-9A-Za-z]{40}$/);
    assert.equal(res.body.status, 'active');
    assert.deepEqual(res.body.account, { id: '42', name: 'Echo account' });
    assert.equal(res.body.webhook_url, `${t.kernel.container.resolverFor('kernel')('host').publicUrl()}/api/v1/integrations/echo/webhook/${id}`);
    assert.equal(res.body.created_by, creator.id);
    assert.equal('credentials' in res.body, false);

    for (const read of [
      await t.request.get(`/api/v1/workspaces/${ws}/connections/${id}`).set(owner.auth),
      await t.request.get(`/api/v1/workspaces/${ws}/connections`).set(owner.auth),
    ]) {
      assert.equal(read.status, 200);
      assert.doesNotMatch(read.text, /good-key|whsec_/);
    }
    const row = await t.db('integration_connections').where({ id }).first();
    assert.doesNotMatch(`${row.credentials} ${row.webhook_secret}`, /good-key|whsec_/);
    assert.match(row.credentials, /^tsb1\.[0-9a-f]{12}\./);

    const given = await connect(creator, { provider: 'echo', name: 'Given secret', credentials: { key: 'good-key' }, webhook_secret: 'a-secret-of-our-own-choosing' });
    assert.equal(given.status, 201);
    assert.equal(given.body.webhook_secret, 'a-secret-of-our-own-choosing');
  });

  it('receives a signed delivery once: 202, in the inbox, told as integration.echo.<event>, then processed', async () => {
    const made = await connect(creator, { provider: 'echo', name: 'Inbox', credentials: { key: 'good-key' } });
    const { id, webhook_secret: secret } = made.body;
    const body = JSON.stringify({ hello: 'world', n: 1 });
    const headers = { 'x-echo-signature': signed(secret, body), 'x-echo-delivery': 'd-1', 'x-echo-event': 'thing' };
    const first = await deliver('echo', id, body, headers);
    assert.equal(first.status, 202);
    assert.equal(first.body.status, 'received');
    const again = await deliver('echo', id, body, headers);
    assert.equal(again.status, 200);
    assert.equal(again.body.id, first.body.id);
    assert.equal(await inbox(id), 1);

    await t.kernel.events.settle();
    const events = await recordedEvents(t, { name: 'integration.echo.thing', workspace_id: ws });
    assert.equal(events.length, 1);
    assert.deepEqual(events[0].payload, { provider: 'echo', connection_id: id, delivery: first.body.id, delivery_id: 'd-1', event: 'thing', payload: { hello: 'world', n: 1 } });
    const list = await t.request.get(`/api/v1/workspaces/${ws}/connections/${id}/deliveries`).set(creator.auth);
    assert.equal(list.status, 200);
    assert.equal(list.body.data.length, 1);
    assert.equal(list.body.data[0].status, 'processed');
    assert.equal(list.body.data[0].delivery_id, 'd-1');
    assert.equal(list.body.data[0].event, 'thing');
  });

  it('answers a wrong signature, a body changed by one byte, a missing header with 401, storing nothing', async () => {
    const made = await connect(creator, { provider: 'echo', name: 'Guarded', credentials: { key: 'good-key' } });
    const { id, webhook_secret: secret } = made.body;
    const body = JSON.stringify({ amount: 100 });
    const cases: Array<[string, Record<string, string>]> = [
      [body, { 'x-echo-signature': signed('another-secret-entirely', body), 'x-echo-delivery': 'x-1' }],
      [body.replace('100', '101'), { 'x-echo-signature': signed(secret, body), 'x-echo-delivery': 'x-2' }],
      [body, { 'x-echo-delivery': 'x-3' }],
      // Not JSON, unsigned: the signature is checked before anything is parsed.
      ['{not json', { 'x-echo-delivery': 'x-4' }],
    ];
    for (const [sent, headers] of cases) {
      const res = await deliver('echo', id, sent, headers);
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.equal(res.body.code, 'bad_signature');
    }
    assert.equal(await inbox(id), 0);
    assert.equal((await recordedEvents(t, { name: 'integration.echo.thing' })).filter((e) => e.payload.connection_id === id).length, 0);
  });

  it('answers 404 for an unknown connection, another provider, or a deleted connection', async () => {
    const made = await connect(creator, { provider: 'echo', name: 'Short-lived', credentials: { key: 'good-key' } });
    const { id, webhook_secret: secret } = made.body;
    const body = '{}';
    const headers = { 'x-echo-signature': signed(secret, body) };
    assert.equal((await deliver('echo', crypto.randomUUID(), body, headers)).status, 404);
    assert.equal((await deliver('nowhere', id, body, headers)).status, 404);
    assert.equal((await deliver('echo', 'not-a-uuid', body, headers)).status, 404);
    assert.equal((await t.request.delete(`/api/v1/workspaces/${ws}/connections/${id}`).set(creator.auth)).status, 204);
    assert.equal((await deliver('echo', id, body, headers)).status, 404);
    assert.equal((await t.request.get(`/api/v1/workspaces/${ws}/connections/${id}`).set(creator.auth)).status, 404);
  });

  it('replays a delivery: its event told again with what was sent', async () => {
    const made = await connect(creator, { provider: 'echo', name: 'Replays', credentials: { key: 'good-key' } });
    const { id, webhook_secret: secret } = made.body;
    const body = JSON.stringify({ replay: true });
    const first = await deliver('echo', id, body, { 'x-echo-signature': signed(secret, body), 'x-echo-delivery': 'r-1' });
    assert.equal(first.status, 202);
    const replayed = await t.request.post(`/api/v1/workspaces/${ws}/connections/${id}/deliveries/${first.body.id}/replay`).set(creator.auth);
    assert.equal(replayed.status, 202);
    await t.kernel.events.settle();
    const told = (await recordedEvents(t, { name: 'integration.echo.thing' })).filter((e) => e.payload.connection_id === id);
    assert.equal(told.length, 2);
    assert.deepEqual(told[1].payload, told[0].payload);
    const unknown = await t.request.post(`/api/v1/workspaces/${ws}/connections/${id}/deliveries/${crypto.randomUUID()}/replay`).set(creator.auth);
    assert.equal(unknown.status, 404);
  });

  it('tests a stored connection again, without changing it when the provider now refuses', async () => {
    KNOWN_KEYS.set('rotating-key', { id: '7', name: 'Soon gone' });
    const made = await connect(creator, { provider: 'echo', name: 'Tested', credentials: { key: 'rotating-key' } });
    const ok = await t.request.post(`/api/v1/workspaces/${ws}/connections/${made.body.id}/test`).set(creator.auth);
    assert.deepEqual(ok.body, { ok: true, detail: 'Signed in as Soon gone' });
    KNOWN_KEYS.delete('rotating-key');
    const refused = await t.request.post(`/api/v1/workspaces/${ws}/connections/${made.body.id}/test`).set(creator.auth);
    assert.equal(refused.status, 200);
    assert.deepEqual(refused.body, { ok: false, detail: 'Echo said 401: unknown key' });
    assert.equal((await t.request.get(`/api/v1/workspaces/${ws}/connections/${made.body.id}`).set(creator.auth)).body.status, 'active');
  });

  it('renames, takes new tested credentials and a new signing secret; refused credentials change nothing', async () => {
    const made = await connect(creator, { provider: 'echo', name: 'Before', credentials: { key: 'good-key' } });
    const { id } = made.body;
    const patch = (body: object, by = creator) => t.request.patch(`/api/v1/workspaces/${ws}/connections/${id}`).set(by.auth).send(body);
    const stored = async () => t.db('integration_connections').where({ id }).first('credentials', 'webhook_secret', 'name');
    const before = await stored();

    const refused = await patch({ name: 'After', credentials: { key: 'wrong-key' } });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'connection_failed');
    assert.deepEqual(await stored(), before);
    assert.equal((await patch({ credentials: { nope: 'x' } })).status, 422);
    assert.equal((await patch({})).status, 422);
    assert.equal((await patch({ name: 'x' }, editor)).status, 403);

    KNOWN_KEYS.set('second-key', { id: '43', name: 'Second account' });
    const renamed = await patch({ name: 'After', credentials: { key: 'second-key' }, webhook_secret: 'the-providers-new-signing-secret' });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.name, 'After');
    assert.deepEqual(renamed.body.account, { id: '43', name: 'Second account' });
    assert.doesNotMatch(renamed.text, /second-key|the-providers-new-signing-secret/);
    const body = '{"after":true}';
    assert.equal((await deliver('echo', id, body, { 'x-echo-signature': signed(made.body.webhook_secret, body) })).status, 401, 'the old secret no longer signs');
    assert.equal((await deliver('echo', id, body, { 'x-echo-signature': signed('the-providers-new-signing-secret', body) })).status, 202);
  });

  it('says so when the instance key no longer opens a connection: a test answers why, a delivery is refused', async () => {
    const made = await connect(creator, { provider: 'echo', name: 'Orphaned', credentials: { key: 'good-key' } });
    const { id, webhook_secret: secret } = made.body;
    const lost = new SecretBox([keyFromText('a key this instance has never had, 32+ chars')]);
    await t.db('integration_connections').where({ id }).update({ credentials: lost.seal('{"key":"good-key"}', sealContext(id, 'credentials')), webhook_secret: lost.seal(secret, sealContext(id, 'webhook_secret')) });
    const tested = await t.request.post(`/api/v1/workspaces/${ws}/connections/${id}/test`).set(creator.auth);
    assert.equal(tested.status, 200);
    assert.equal(tested.body.ok, false);
    assert.match(tested.body.detail, /cannot be opened with the instance's keys/);
    const body = '{}';
    const res = await deliver('echo', id, body, { 'x-echo-signature': signed(secret, body) });
    assert.equal(res.status, 401);
    assert.match(res.body.detail, /cannot be opened/);
    assert.equal(await inbox(id), 0);
    // A rotation cannot seal again what it cannot open: it stops, changing nothing, until the connection goes.
    const box = t.kernel.container.resolverFor('kernel')('secrets').get().withCurrent(keyFromText('yet another instance key, 32+ characters'));
    await assert.rejects(inTransaction(t.db, (trx) => t.kernel.hooks.secrets.rotate.promise({ trx, box, resealed: {} })), /cannot be opened/);
    assert.equal(SecretBox.keyIdOf((await t.db('integration_connections').whereNot({ id }).first('credentials')).credentials) === box.currentKeyId, false);
    await t.request.delete(`/api/v1/workspaces/${ws}/connections/${id}`).set(creator.auth).expect(204);
  });

  it('seals every credential and signing secret again under a new key in one rotation, and they still work', async () => {
    const made = await connect(creator, { provider: 'echo', name: 'Rotated', credentials: { key: 'good-key' } });
    const { id, webhook_secret: secret } = made.body;
    const next = keyFromText('a brand new instance key of at least 32 characters');
    const box = t.kernel.container.resolverFor('kernel')('secrets').get().withCurrent(next);
    const resealed: Record<string, number> = {};
    await inTransaction(t.db, (trx) => t.kernel.hooks.secrets.rotate.promise({ trx, box, resealed }));
    assert.ok(resealed['integrations.connections'] >= 1);
    const rows = await t.db('integration_connections').select('id', 'credentials', 'webhook_secret');
    for (const row of rows) {
      assert.equal(SecretBox.keyIdOf(row.credentials), next.id);
      assert.equal(SecretBox.keyIdOf(row.webhook_secret), next.id);
    }
    const row = rows.find((r) => r.id === id)!;
    assert.equal(JSON.parse(box.open(row.credentials, sealContext(id, 'credentials'))).key, 'good-key');
    assert.equal(box.open(row.webhook_secret, sealContext(id, 'webhook_secret')), secret);
    // A value moved to another row does not open there.
    assert.throws(() => box.open(row.credentials, sealContext(crypto.randomUUID(), 'credentials')));
  });

  it('refuses to start with two plugins adding the same provider', async () => {
    const twin = (id: string) =>
      definePlugin({
        id,
        version: '1.0.0',
        kernel: '^1.0.0',
        dependsOn: { integrations: '^1.0.0' },
        register(ctx) {
          ctx.hooksOf('integrations.providers').providers.tap(id, (list) => [...list, echoProvider(() => apiUrl)]);
        },
      });
    await assert.rejects(startTestKernel({ plugins: [system, auth, workspaces, integrations, twin('integration-echo-a'), twin('integration-echo-b')] }), /"echo" is added twice/);
  });
});
