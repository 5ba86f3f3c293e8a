import assert from 'node:assert/strict';
import { sleep, waitUntil } from '../../fixtures/wait.ts';
import { automationWorld, type AutomationWorld } from './world.ts';

describe('automations: rules, record triggers, runs', function () {
  this.timeout(60000);
  let w: AutomationWorld;

  before(async () => {
    w = await automationWorld({ config: { jobs: { pollingIntervalSeconds: 0.5 } } });
  });
  after(() => w.t.stop());

  const create = (body: Record<string, unknown>, who = w.admin) => w.t.request.post(w.api('/automations')).set(who.auth).send({ name: 'A', database_id: w.db, enabled: true, ...body });
  const record = async (values: Record<string, unknown>) => (await w.t.request.post(w.api(`/databases/${w.db}/records`)).set(w.admin.auth).send({ values }).expect(201)).body;
  const patch = async (id: string, values: Record<string, unknown>) => (await w.t.request.patch(w.api(`/databases/${w.db}/records/${id}`)).set(w.admin.auth).send({ values }).expect(200)).body;
  const read = async (id: string) => (await w.t.request.get(w.api(`/databases/${w.db}/records/${id}`)).set(w.admin.auth).expect(200)).body;
  const runs = async (id: string) => (await w.t.request.get(w.api(`/automations/${id}/runs`)).set(w.admin.auth).expect(200)).body.data as Array<Record<string, any>>;
  const finished = (id: string, n = 1) => waitUntil(`${n} finished runs`, async () => (await runs(id)).filter((r) => !['queued', 'running'].includes(r.status)).length >= n, 20000);
  const disable = (id: string) => w.t.request.patch(w.api(`/automations/${id}`)).set(w.admin.auth).send({ enabled: false }).expect(200);

  it('creates, reads, changes and deletes an automation, and refuses bad input with pointers, storing nothing', async () => {
    const created = await create({ enabled: false, trigger: { type: 'record_updated', fields: ['stage'] }, conditions: { field: 'amount', op: 'gt', value: 10 }, actions: [{ type: 'update_record', values: { note: 'big' } }] }).expect(201);
    assert.deepEqual(
      { name: created.body.name, database_id: created.body.database_id, enabled: created.body.enabled, trigger: created.body.trigger, conditions: created.body.conditions, actions: created.body.actions },
      { name: 'A', database_id: w.db, enabled: false, trigger: { type: 'record_updated', fields: ['stage'] }, conditions: { field: 'amount', op: 'gt', value: 10 }, actions: [{ type: 'update_record', values: { note: 'big' } }] },
    );
    const got = await w.t.request.get(w.api(`/automations/${created.body.id}`)).set(w.admin.auth).expect(200);
    assert.equal(got.body.id, created.body.id);
    const patched = await w.t.request.patch(w.api(`/automations/${created.body.id}`)).set(w.admin.auth).send({ name: 'B', conditions: null }).expect(200);
    assert.equal(patched.body.name, 'B');
    assert.equal(patched.body.conditions, null);

    const count = async () => Number((await w.t.db('automations').count({ n: '*' }))[0].n);
    const before = await count();
    for (const [body, pointer] of [
      [{ trigger: { type: 'record_updated', fields: ['nope'] }, actions: [{ type: 'update_record', values: {} }] }, '/trigger/fields/0'],
      [{ trigger: { type: 'record_created' }, conditions: { field: 'amount', op: 'contains', value: 'x' }, actions: [{ type: 'update_record', values: {} }] }, '/conditions/op'],
      [{ trigger: { type: 'record_created' }, conditions: { field: 'ghost', op: 'eq', value: 1 }, actions: [{ type: 'update_record', values: {} }] }, '/conditions/field'],
      [{ trigger: { type: 'record_created' }, actions: [{ type: 'teleport' }] }, '/actions/0/type'],
      [{ trigger: { type: 'record_created' }, actions: [{ type: 'update_record' }] }, '/actions/0/values'],
      [{ trigger: { type: 'record_created' }, actions: [{ type: 'create_record', database_id: '00000000-0000-4000-8000-000000000000', values: {} }] }, '/actions/0/database_id'],
      [{ trigger: { type: 'record_matches' }, actions: [{ type: 'update_record', values: {} }] }, '/conditions'],
      [{ trigger: { type: 'record_created' }, database_id: '00000000-0000-4000-8000-000000000000', actions: [{ type: 'update_record', values: {} }] }, '/database_id'],
      [{ trigger: { type: 'whenever' }, actions: [{ type: 'update_record', values: {} }] }, '/trigger/type'],
    ] as const) {
      const res = await create(body).expect(422);
      assert.equal(res.body.code, 'validation_failed');
      assert.ok(
        res.body.errors.some((e: { pointer: string }) => e.pointer === pointer || e.pointer.startsWith(pointer)),
        `${JSON.stringify(body)} → ${JSON.stringify(res.body.errors)}`,
      );
    }
    assert.equal(await count(), before, 'nothing stored');
    // Editors do not manage automations.
    await create({ trigger: { type: 'record_created' }, actions: [{ type: 'update_record', values: {} }] }, w.editor).expect(403);
    await w.t.request.get(w.api(`/automations/${created.body.id}`)).set(w.editor.auth).expect(403);
    await w.t.request.get(w.api(`/automations/${created.body.id}`)).set(w.outsider.auth).expect(404);

    await w.t.request.delete(w.api(`/automations/${created.body.id}`)).set(w.admin.auth).expect(204);
    await w.t.request.get(w.api(`/automations/${created.body.id}`)).set(w.admin.auth).expect(404);
  });

  it('record_created runs update_record with placeholders; the write says its origin is the automation', async () => {
    const a = (await create({ trigger: { type: 'record_created' }, actions: [{ type: 'update_record', values: { note: 'Deal {{record.name}} worth {{record.amount}}', stage: 'new' } }] }).expect(201)).body;
    const r = await record({ name: 'Acme', amount: 5 });
    await finished(a.id);
    const [run] = await runs(a.id);
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    assert.deepEqual(run.trigger, { type: 'record_created', record_id: r.id, event_id: null });
    assert.equal(run.steps.length, 1);
    assert.equal(run.steps[0].action, 'update_record');
    assert.equal(run.steps[0].status, 'succeeded');
    assert.ok(run.steps[0].started_at && run.steps[0].finished_at);
    const after = await read(r.id);
    assert.equal(after.values.note, 'Deal Acme worth 5');
    assert.equal(after.values.stage, 'new');
    const history = await w.t.db('activity_entries').where({ record_id: r.id }).orderBy('created_at').select('origin');
    assert.ok(history.some((h: { origin: { type: string; id: string } }) => h.origin.type === 'automation' && h.origin.id === a.id), JSON.stringify(history));
    const single = await w.t.request.get(w.api(`/runs/${run.id}`)).set(w.admin.auth).expect(200);
    assert.equal(single.body.id, run.id);
    await w.t.request.get(w.api(`/runs/${run.id}`)).set(w.outsider.auth).expect(404);
    await w.t.request.post(w.api(`/runs/${run.id}/cancel`)).set(w.admin.auth).expect(409);
    await disable(a.id);
  });

  it('record_updated fires only when a named field changes and the conditions match; before values are reachable', async () => {
    const a = (await create({ trigger: { type: 'record_updated', fields: ['stage'] }, conditions: { field: 'amount', op: 'gte', value: 100 }, actions: [{ type: 'update_record', values: { note: 'was {{trigger.before.stage}}' } }] }).expect(201)).body;
    const big = await record({ name: 'Big', amount: 500, stage: 'lead' });
    const small = await record({ name: 'Small', amount: 1, stage: 'lead' });
    await patch(big.id, { amount: 600 }); // not the named field
    await patch(small.id, { stage: 'won' }); // does not match
    await patch(big.id, { stage: 'won' });
    await finished(a.id);
    const all = await runs(a.id);
    assert.equal(all.length, 1, JSON.stringify(all));
    assert.equal(all[0].trigger.record_id, big.id);
    assert.equal((await read(big.id)).values.note, 'was lead');
    assert.equal((await read(small.id)).values.note, null);
    await disable(a.id);
  });

  it('placeholders write a cell as its text form, as the CSV export does: a select its label, a user a name', async () => {
    const space = (await w.t.request.get(w.api(`/databases/${w.db}`)).set(w.admin.auth).expect(200)).body.space_id;
    const db = (await w.t.request.post(w.api('/databases')).set(w.admin.auth).send({ name: 'Tickets', space_id: space }).expect(201)).body.id;
    const field = (body: object) => w.t.request.post(w.api(`/databases/${db}/fields`)).set(w.admin.auth).send(body).expect(201);
    await field({ name: 'Status', api_name: 'status', type: 'single_select', options: { choices: [{ label: 'Open' }, { label: 'Closed' }] } });
    await field({ name: 'Tags', api_name: 'tags', type: 'multi_select', options: { choices: [{ label: 'red' }, { label: 'blue' }] } });
    await field({ name: 'Owner', api_name: 'owner', type: 'user' });
    await field({ name: 'Price', api_name: 'price', type: 'number', options: { precision: 2 } });
    await field({ name: 'Note', api_name: 'note', type: 'text' });
    const text = 'from {{trigger.before.status}} to {{record.status}}; {{record.tags}}; {{record.owner}}; {{record.price}}';
    const a = (
      await create({
        database_id: db,
        trigger: { type: 'record_updated', fields: ['status'] },
        actions: [{ type: 'update_record', values: { note: text } }, { type: 'create_record', database_id: w.logDb, values: { name: '{{trigger.before.status}}' } }],
      }).expect(201)
    ).body;
    const r = (await w.t.request.post(w.api(`/databases/${db}/records`)).set(w.admin.auth).send({ values: { name: 'T', status: 'Open', tags: ['blue', 'red'], owner: w.admin.id, price: 12.5 } }).expect(201)).body;
    const dry = await w.t.request.post(w.api(`/automations/${a.id}/dry-run`)).set(w.admin.auth).send({ record_id: r.id }).expect(200);
    assert.equal(dry.body.steps[0].would.values.note, 'from  to Open; red, blue; Ada Admin; 12.50', JSON.stringify(dry.body));
    await w.t.request.patch(w.api(`/databases/${db}/records/${r.id}`)).set(w.admin.auth).send({ values: { status: 'Closed' } }).expect(200);
    await finished(a.id);
    const [run] = await runs(a.id);
    assert.equal(run.status, 'succeeded', JSON.stringify(run));
    const note = (await w.t.request.get(w.api(`/databases/${db}/records/${r.id}`)).set(w.admin.auth).expect(200)).body.values.note;
    assert.equal(note, 'from Open to Closed; red, blue; Ada Admin; 12.50');
    // A string that is one placeholder of a select takes its label too.
    const logged = (await w.t.request.get(w.api(`/databases/${w.logDb}/records/${run.steps[1].output.record_id}`)).set(w.admin.auth).expect(200)).body;
    assert.equal(logged.values.name, 'Open');
    await disable(a.id);
  });

  it('record_matches fires when a record starts matching, not again while it keeps matching', async () => {
    const a = (await create({ trigger: { type: 'record_matches' }, conditions: { field: 'stage', op: 'eq', value: 'won' }, actions: [{ type: 'create_record', database_id: w.logDb, values: { name: 'won {{record.name}}' } }] }).expect(201)).body;
    const r = await record({ name: 'M', stage: 'lead' });
    await patch(r.id, { stage: 'won' });
    await patch(r.id, { amount: 3 }); // still matching: no new run
    await finished(a.id);
    assert.equal((await runs(a.id)).length, 1);
    await patch(r.id, { stage: 'lost' });
    await patch(r.id, { stage: 'won' }); // starts matching again
    await finished(a.id, 2);
    assert.equal((await runs(a.id)).length, 2);
    const logged = (await w.t.request.get(w.api(`/databases/${w.logDb}/records`)).set(w.admin.auth).expect(200)).body.data;
    assert.equal(logged.filter((x: { values: { name: string } }) => x.values.name === 'won M').length, 2);
    await disable(a.id);
    // A record that already matched when the automation was made does not start matching at its next write.
    const already = await record({ name: 'Already', stage: 'won' });
    const b = (await create({ trigger: { type: 'record_matches' }, conditions: { field: 'stage', op: 'eq', value: 'won' }, actions: [{ type: 'update_record', values: { note: 'matched' } }] }).expect(201)).body;
    await patch(already.id, { amount: 9 });
    await sleep(800);
    assert.equal((await runs(b.id)).length, 0);
    await disable(b.id);
  });

  it('a failed write is recorded on its step and never retried', async () => {
    const a = (await create({ trigger: { type: 'record_created' }, actions: [{ type: 'update_record', values: { amount: 'not a number' } }, { type: 'update_record', values: { note: 'never' } }] }).expect(201)).body;
    const r = await record({ name: 'F' });
    await finished(a.id);
    const [run] = await runs(a.id);
    assert.equal(run.status, 'failed');
    assert.equal(run.steps.length, 1, 'the second step never started');
    assert.equal(run.steps[0].status, 'failed');
    assert.ok(run.steps[0].error);
    assert.equal((await read(r.id)).values.note, null);
    await disable(a.id);
  });

  it('loop guard: an automation that updates its own record runs once per chain, the skipped run canceled with a reason', async () => {
    const a = (await create({ trigger: { type: 'record_updated' }, actions: [{ type: 'update_record', values: { amount: '{{record.amount}}', note: 'touched {{record.amount}}' } }] }).expect(201)).body;
    const r = await record({ name: 'L', amount: 1 });
    await patch(r.id, { amount: 2 });
    await finished(a.id, 2);
    await sleep(1500);
    const all = await runs(a.id);
    assert.equal(all.length, 2, JSON.stringify(all.map((x) => [x.status, x.reason])));
    const canceled = all.find((x) => x.status === 'canceled');
    assert.ok(canceled, 'the second run is canceled');
    assert.match(canceled.reason, /Loop guard/);
    assert.equal(all.filter((x) => x.status === 'succeeded').length, 1);
    await disable(a.id);
  });

  it('a dry run answers whether a record matches and what would happen, writing, queuing and sending nothing', async () => {
    const a = (await create({ enabled: false, trigger: { type: 'record_created' }, conditions: { field: 'amount', op: 'gt', value: 10 }, actions: [{ type: 'update_record', values: { note: 'x{{record.amount}}' } }, { type: 'create_record', database_id: w.logDb, values: { name: 'n' } }] }).expect(201)).body;
    const r = await record({ name: 'D', amount: 50 });
    const counts = async () => ({
      runs: Number((await w.t.db('automation_runs').count({ n: '*' }))[0].n),
      log: (await w.t.request.get(w.api(`/databases/${w.logDb}/records`)).set(w.admin.auth)).body.data.length,
      version: (await read(r.id)).version,
      jobs: Number((await w.t.db.raw(`SELECT count(*) AS n FROM ${w.t.storage.schema ? `"${w.t.storage.schema}_jobs"` : 'pgboss'}.job WHERE name = 'automations.run'`).catch(() => ({ rows: [{ n: -1 }] }))).rows[0].n),
    });
    const before = await counts();
    const res = await w.t.request.post(w.api(`/automations/${a.id}/dry-run`)).set(w.admin.auth).send({ record_id: r.id }).expect(200);
    assert.deepEqual(res.body, {
      matched: true,
      steps: [
        { action: 'update_record', would: { record_id: r.id, values: { note: 'x50' } } },
        { action: 'create_record', would: { database_id: w.logDb, values: { name: 'n' } } },
      ],
    });
    assert.deepEqual(await counts(), before);
    const other = await record({ name: 'small', amount: 1 });
    assert.equal((await w.t.request.post(w.api(`/automations/${a.id}/dry-run`)).set(w.admin.auth).send({ record_id: other.id }).expect(200)).body.matched, false);
    await w.t.request.post(w.api(`/automations/${a.id}/dry-run`)).set(w.admin.auth).send({ record_id: '00000000-0000-4000-8000-000000000000' }).expect(404);
  });

  it('cancel ends a queued run; a disabled automation does not run', async () => {
    const a = (await create({ enabled: false, trigger: { type: 'record_created' }, actions: [{ type: 'update_record', values: { note: 'x' } }] }).expect(201)).body;
    await record({ name: 'nothing' });
    await sleep(300);
    assert.equal((await runs(a.id)).length, 0);
    const [run] = await w.t.db('automation_runs').insert({ automation_id: a.id, workspace_id: w.ws, trigger: JSON.stringify({ type: 'record_created', record_id: null, event_id: null, before: null, after: null, depth: 0, chain: [] }) }).returning('id');
    const canceled = await w.t.request.post(w.api(`/runs/${run.id}/cancel`)).set(w.admin.auth).expect(200);
    assert.equal(canceled.body.status, 'canceled');
    assert.ok(canceled.body.finished_at);
    const again = await w.t.request.post(w.api(`/runs/${run.id}/cancel`)).set(w.admin.auth).expect(409);
    assert.equal(again.body.code, 'run_finished');
  });
});
