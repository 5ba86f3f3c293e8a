import assert from 'node:assert/strict';
import { createWorkspace } from '../../../core/testing.ts';
import { formWorld, type FormWorld } from './setup.ts';

describe('public: a published form in a pack', () => {
  let w: FormWorld;

  beforeEach(async () => {
    w = await formWorld();
  });
  afterEach(() => w.t.stop());

  it('travels as an unpublished form view: its settings along, never its link', async () => {
    const space = (await w.t.db('databases').where({ id: w.db }).first('space_id')).space_id as string;
    const pack = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/packs/export`).set(w.admin.auth).send({ space_ids: [space] }).expect(200)).body;
    const text = JSON.stringify(pack);
    assert.ok(!text.includes(w.token), 'the pack holds the token');
    const hash = (await w.t.db('view_publications').where({ view_id: w.viewId }).first('token_hash')).token_hash as string;
    assert.ok(!text.includes(hash), 'the pack holds the token hash');

    const away = (await createWorkspace(w.t, w.admin)).id;
    const installed = (await w.t.request.post(`/api/v1/workspaces/${away}/packs/install`).set(w.admin.auth).send({ pack }).expect(201)).body;
    const db = installed.created.database[0].id as string;
    const views = (await w.t.request.get(`/api/v1/workspaces/${away}/databases/${db}/views`).set(w.admin.auth).expect(200)).body.data;
    const form = views.find((v: { type: string }) => v.type === 'form');
    assert.deepEqual(
      [form.name, form.published, form.published_at, form.hidden_fields, form.options.title, form.options.required_fields],
      ['Contact', false, null, ['note'], 'Get in touch', ['name', 'email']],
    );
    // The original link still names the original form only; the installed one answers nothing until published.
    assert.equal(await w.t.db('view_publications').where({ view_id: form.id }).first(), undefined);
    await w.t.request.get(w.form()).expect(200);
    const token = (await w.t.request.post(`/api/v1/workspaces/${away}/databases/${db}/views/${form.id}/publish`).set(w.admin.auth).expect(201)).body.token;
    assert.equal((await w.t.request.get(w.form(token)).expect(200)).body.title, 'Get in touch');
  });
});
