import assert from 'node:assert/strict';
import { joinWorkspace, signUp } from '../../../core/testing.ts';
import { webhookWorld, type WebhookWorld } from './world.ts';

describe('webhooks: personal data', function () {
  this.timeout(30000);
  let w: WebhookWorld;

  before(async () => {
    w = await webhookWorld({});
  });
  after(() => w.t.stop());

  it("keeps a webhook when its creator is erased from the workspace, forgetting who made it", async () => {
    const second = await signUp(w.t, { name: 'Sam Second' });
    await joinWorkspace(w.t, w.admin, w.ws, second, 'admin');
    const hook = (await w.t.request.post(w.api('/webhooks')).set(second.auth).send({ url: 'https://203.0.113.10/x', events: ['record.created'], enabled: false }).expect(201)).body;
    assert.equal((await w.t.db('webhooks').where({ id: hook.id }).first('created_by')).created_by, second.id);

    const receipt = (await w.t.request.post(w.api(`/members/${second.id}/erase`)).set(w.admin.auth).send({ confirm: second.email }).expect(200)).body;
    const report = receipt.reports.find((r: { kind: string }) => r.kind === 'webhooks');
    assert.equal(report.pseudonymised, 1);
    assert.equal(report.deleted, 0);
    const kept = await w.t.request.get(w.api(`/webhooks/${hook.id}`)).set(w.admin.auth).expect(200);
    assert.equal(kept.body.url, 'https://203.0.113.10/x');
    assert.equal((await w.t.db('webhooks').where({ id: hook.id }).first('created_by')).created_by, null);
  });
});
