import assert from 'node:assert/strict';
import { webhookWorld, type WebhookWorld } from './world.ts';

describe('webhooks: what they belong to', function () {
  this.timeout(30000);
  let w: WebhookWorld;

  before(async () => {
    w = await webhookWorld({});
  });
  after(() => w.t.stop());

  it('go with the database they are narrowed to; the workspace-wide ones stay', async () => {
    const create = (body: object) => w.t.request.post(w.api('/webhooks')).set(w.admin.auth).send({ url: 'https://203.0.113.10/x', events: ['*'], enabled: false, ...body }).expect(201);
    const narrowed = (await create({ database_id: w.otherDb })).body;
    const other = (await create({ database_id: w.db })).body;
    const wide = (await create({})).body;
    await w.t.request.delete(w.api(`/databases/${w.otherDb}`)).set(w.admin.auth).send({ confirm: 'Other' }).expect(204);
    await w.t.request.get(w.api(`/webhooks/${narrowed.id}`)).set(w.admin.auth).expect(404);
    await w.t.request.get(w.api(`/webhooks/${other.id}`)).set(w.admin.auth).expect(200);
    await w.t.request.get(w.api(`/webhooks/${wide.id}`)).set(w.admin.auth).expect(200);
  });

  it('go with their workspace', async () => {
    const hook = (await w.t.request.post(w.api('/webhooks')).set(w.admin.auth).send({ url: 'https://203.0.113.10/x', events: ['*'], enabled: false }).expect(201)).body;
    await w.t.request.delete(`/api/v1/workspaces/${w.ws}`).set(w.admin.auth).expect(204);
    assert.equal((await w.t.db('webhooks').where({ id: hook.id })).length, 0);
  });
});
