import assert from 'node:assert/strict';
import { joinWorkspace, signUp, type SignedUpUser } from '../../../core/testing.ts';
import { waitUntil } from '../../fixtures/wait.ts';
import { createPat } from '../tokens/helpers.ts';
import { automationWorld, type AutomationWorld } from '../automations/world.ts';

describe('buttons: the button field and its press', function () {
  this.timeout(60000);
  let w: AutomationWorld;
  let reader: SignedUpUser;
  let automation: string;
  let field: string;
  let record: string;

  const automations = (body: Record<string, unknown>) => w.t.request.post(w.api('/automations')).set(w.admin.auth).send({ name: 'Press', database_id: w.db, enabled: true, ...body });
  const fields = (body: Record<string, unknown>) => w.t.request.post(w.api(`/databases/${w.db}/fields`)).set(w.admin.auth).send({ name: 'Quote', type: 'button', ...body });
  const press = (who: { auth: Record<string, string> }, ref = 'quote', id = record) => w.t.request.post(w.api(`/databases/${w.db}/records/${id}/buttons/${ref}/press`)).set(who.auth);
  const run = (id: string) => waitUntil('the run to end', async () => {
    const r = (await w.t.request.get(w.api(`/runs/${id}`)).set(w.admin.auth).expect(200)).body;
    return ['succeeded', 'failed', 'canceled'].includes(r.status) ? r : null;
  }, 20000);

  before(async () => {
    w = await automationWorld({ config: { jobs: { pollingIntervalSeconds: 0.5 } } });
    reader = await signUp(w.t, { name: 'Rita Reader' });
    await joinWorkspace(w.t, w.admin, w.ws, reader, 'member');
    automation = (await automations({ trigger: { type: 'button' }, actions: [{ type: 'update_record', values: { note: 'Quoted {{record.amount}}' } }] }).expect(201)).body.id;
    field = (await fields({ api_name: 'quote', options: { label: 'Send quote', automation_id: automation } }).expect(201)).body.id;
    record = (await w.t.request.post(w.api(`/databases/${w.db}/records`)).set(w.admin.auth).send({ values: { name: 'Deal', amount: 42 } }).expect(201)).body.id;
  });
  after(() => w.t.stop());

  it('reads { label }, refuses writes, filters and sorts on it', async () => {
    const got = (await w.t.request.get(w.api(`/databases/${w.db}/records/${record}`)).set(w.admin.auth).expect(200)).body;
    assert.deepEqual(got.values.quote, { label: 'Send quote' });
    const write = await w.t.request.patch(w.api(`/databases/${w.db}/records/${record}`)).set(w.admin.auth).send({ values: { quote: 'x' } }).expect(422);
    assert.equal(write.body.errors[0].pointer, '/values/quote');
    const query = (body: object) => w.t.request.post(w.api(`/databases/${w.db}/records/query`)).set(w.admin.auth).send(body).expect(422);
    assert.equal((await query({ filter: { field: 'quote', op: 'eq', value: 'x' } })).body.errors[0].pointer, '/filter/op');
    assert.equal((await query({ sorts: [{ field: 'quote' }] })).body.errors[0].pointer, '/sorts/0/field');
  });

  it('refuses options naming no automation of this database, or one without a button trigger, storing no field', async () => {
    const other = (await w.t.request.post(w.api('/automations')).set(w.admin.auth).send({ name: 'Elsewhere', database_id: w.logDb, trigger: { type: 'button' }, actions: [{ type: 'update_record', values: {} }] }).expect(201)).body.id;
    const onCreate = (await automations({ trigger: { type: 'record_created' }, actions: [{ type: 'update_record', values: {} }] }).expect(201)).body.id;
    const before = (await w.t.request.get(w.api(`/databases/${w.db}/fields`)).set(w.admin.auth).expect(200)).body.data.length;
    for (const [options, pointer] of [
      [{ label: 'B', automation_id: other }, '/options/automation_id'],
      [{ label: 'B', automation_id: onCreate }, '/options/automation_id'],
      [{ label: 'B', automation_id: '00000000-0000-4000-8000-000000000000' }, '/options/automation_id'],
      [{ automation_id: automation }, '/options/label'],
    ] as const) {
      const res = await fields({ name: 'Bad', options }).expect(422);
      assert.equal(res.body.errors[0].pointer, pointer, JSON.stringify(res.body));
    }
    assert.equal((await w.t.request.get(w.api(`/databases/${w.db}/fields`)).set(w.admin.auth).expect(200)).body.data.length, before);
  });

  it('an editor presses: 202 with a run whose trigger names the record, and the action reads it', async () => {
    const res = await press(w.editor).expect(202);
    const done = await run(res.body.run_id);
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    assert.deepEqual(done.trigger, { type: 'button', record_id: record, event_id: null });
    const stored = await w.t.db('automation_runs').where({ id: res.body.run_id }).first('trigger');
    assert.equal(stored.trigger.field, field);
    const got = (await w.t.request.get(w.api(`/databases/${w.db}/records/${record}`)).set(w.admin.auth).expect(200)).body;
    assert.equal(got.values.note, 'Quoted 42');
  });

  it('a reader gets 403, a token without allow_run_button 403, one with it 202; an outsider 404', async () => {
    const runs = async () => Number((await w.t.db('automation_runs').count({ n: '*' }))[0].n);
    const before = await runs();
    await press(reader).expect(403);
    const plain = await createPat(w.t, w.editor, { workspace_id: w.ws, scope: 'write' });
    const refused = await press(plain).expect(403);
    assert.match(refused.body.detail, /allow_run_button/);
    await press(w.outsider).expect(404);
    await press(w.editor, 'note').expect(404);
    await press(w.editor, 'quote', '00000000-0000-4000-8000-000000000000').expect(404);
    assert.equal(await runs(), before);
    const allowed = await createPat(w.t, w.editor, { workspace_id: w.ws, scope: 'write', allow_run_button: true });
    await press(allowed).expect(202);
  });

  it('a disabled automation → 409 automation_disabled, nothing stored', async () => {
    await w.t.request.patch(w.api(`/automations/${automation}`)).set(w.admin.auth).send({ enabled: false }).expect(200);
    const runs = Number((await w.t.db('automation_runs').count({ n: '*' }))[0].n);
    const res = await press(w.editor).expect(409);
    assert.equal(res.body.code, 'automation_disabled');
    assert.equal(Number((await w.t.db('automation_runs').count({ n: '*' }))[0].n), runs);
    await w.t.request.patch(w.api(`/automations/${automation}`)).set(w.admin.auth).send({ enabled: true }).expect(200);
  });
});
