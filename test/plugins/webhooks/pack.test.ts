import assert from 'node:assert/strict';
import { joinWorkspace, signUp } from '../../../core/testing.ts';
import { webhookWorld, type WebhookWorld } from './world.ts';

describe('webhooks: packs', function () {
  this.timeout(30000);
  let w: WebhookWorld;
  let hook: { id: string; secret: string };
  let pack: { resources: Record<string, Array<Record<string, unknown>>> };

  before(async () => {
    w = await webhookWorld({ config: { plugins: { webhooks: { options: { allowPrivateNetworks: false } } } } });
    hook = (await w.t.request.post(w.api('/webhooks')).set(w.admin.auth).send({ url: 'https://203.0.113.10/deals', events: ['record.created'], enabled: false, database_id: w.db }).expect(201)).body;
    await w.t.request.post(w.api('/webhooks')).set(w.admin.auth).send({ url: 'https://203.0.113.10/all', events: ['*'], enabled: false }).expect(201);
    pack = (await w.t.request.post(w.api('/packs/export')).set(w.admin.auth).send({ space_ids: [w.space] }).expect(200)).body;
  });
  after(() => w.t.stop());

  it("exports the database's webhooks without their secret", () => {
    const webhooks = pack.resources.webhook;
    assert.equal(webhooks.length, 1, 'the workspace-wide webhook belongs to no pack');
    assert.deepEqual(Object.keys(webhooks[0]).sort(), ['database', 'events', 'ref', 'url']);
    assert.equal(webhooks[0].url, 'https://203.0.113.10/deals');
    assert.ok(pack.resources.database.some((d) => d.ref === webhooks[0].database && d.name === 'Deals'));
    assert.ok(!JSON.stringify(pack).includes(hook.secret));
    assert.ok(!JSON.stringify(pack).includes('whsec_'));
  });

  it('installs a webhook disabled with a new secret shown once in the install answer; creators may not install one', async () => {
    const installed = (await w.t.request.post(`/api/v1/workspaces/${w.otherWs}/packs/install`).set(w.outsider.auth).send({ pack }).expect(201)).body;
    const [made] = installed.created.webhook;
    assert.deepEqual(installed.secrets.map((s: { kind: string; id: string }) => [s.kind, s.id]), [['webhook', made.id]]);
    const secret = installed.secrets[0].secret as string;
    assert.match(secret, /^whsec_/);
    assert.notEqual(secret, hook.secret);
    const got = (await w.t.request.get(`/api/v1/workspaces/${w.otherWs}/webhooks/${made.id}`).set(w.outsider.auth).expect(200)).body;
    assert.equal(got.enabled, false);
    assert.ok(installed.created.database.some((d: { id: string }) => d.id === got.database_id));
    assert.equal(got.secret, undefined);
    const list = await w.t.request.get(`/api/v1/workspaces/${w.otherWs}/packs/installs`).set(w.outsider.auth).expect(200);
    assert.ok(!JSON.stringify(list.body).includes(secret), 'the ledger keeps no secret');

    const creator = await signUp(w.t, { name: 'Cleo Creator' });
    await joinWorkspace(w.t, w.outsider, w.otherWs, creator, 'creator');
    const refused = await w.t.request.post(`/api/v1/workspaces/${w.otherWs}/packs/install`).set(creator.auth).send({ pack }).expect(422);
    assert.ok(refused.body.errors.some((e: { pointer: string; detail: string }) => e.pointer.startsWith('/pack/resources/webhook/0') && /admin/.test(e.detail)), JSON.stringify(refused.body.errors));
  });

  it('refuses a pack whose webhook targets a private address, at its pointer', async () => {
    const bad = structuredClone(pack);
    bad.resources.webhook[0].url = 'http://169.254.169.254/latest';
    const res = await w.t.request.post(`/api/v1/workspaces/${w.otherWs}/packs/install`).set(w.outsider.auth).send({ pack: bad }).expect(422);
    assert.ok(res.body.errors.some((e: { pointer: string }) => e.pointer === '/pack/resources/webhook/0/url'), JSON.stringify(res.body.errors));
  });
});
