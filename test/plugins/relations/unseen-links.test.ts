import { recordedEvents } from '../../../core/testing.ts';
import assert from 'node:assert/strict';
import { pointers, recordsWorld, type RecordsWorld } from '../records/setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

/**
 * A guest of space S (database D) whose records link into Secrets, a database of a space it was
 * not given: every computed cell, filter, sort and option reaching Secrets reads as an empty link.
 */
describe('relations: links into a database the reader cannot see', () => {
  let w: RecordsWorld;
  let secrets: string;
  let ann: string;
  let bob: string;
  let projectX: string;
  const api = (path: string) => `/api/v1/workspaces/${w.ws}${path}`;
  const records = (db: string, path = '') => api(`/databases/${db}/records${path}`);
  const create = async (db: string, values: object) => (await w.t.request.post(records(db)).set(w.admin.auth).send({ values }).expect(201)).body.id as string;
  const field = (db: string, body: object, who = w.admin) => w.t.request.post(api(`/databases/${db}/fields`)).set(who.auth).send(body);
  const query = (body: object, who = w.member) => w.t.request.post(records(w.db, '/query')).set(who.auth).send(body);
  const ids = (res: { body: { data: Array<{ id: string }> } }) => res.body.data.map((r) => r.id);

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await recordsWorld(undefined, kernel());
    const hidden = (await w.t.request.post(api('/spaces')).set(w.admin.auth).send({ name: 'Board only' }).expect(201)).body.id;
    secrets = (await w.t.request.post(api('/databases')).set(w.admin.auth).send({ name: 'Secrets', space_id: hidden }).expect(201)).body.id;
    await field(secrets, { name: 'Salary', type: 'number' }).expect(201);
    await w.t.request
      .post(api('/relations'))
      .set(w.admin.auth)
      .send({ from_database_id: w.db, to_database_id: secrets, kind: 'many_to_many', from_field_name: 'Secrets', to_field_name: 'People' })
      .expect(201);
    await field(w.db, { name: 'Salaries', type: 'lookup', options: { link_field_id: 'secrets', target_field_id: 'salary' } }).expect(201);
    await field(w.db, { name: 'Payroll', type: 'rollup', options: { link_field_id: 'secrets', target_field_id: 'salary', function: 'sum' } }).expect(201);
    await field(w.db, { name: 'Secret count', type: 'count', options: { link_field_id: 'secrets' } }).expect(201);
    projectX = await create(secrets, { name: 'Project X', salary: 250000 });
    const projectY = await create(secrets, { name: 'Project Y', salary: 90000 });
    ann = await create(w.db, { name: 'Ann', secrets: [projectX] });
    bob = await create(w.db, { name: 'Bob', secrets: [projectY] });
    await create(w.db, { name: 'Cy' });
    // The member becomes a guest of D's space only.
    const space = (await w.t.db('databases').where({ id: w.db }).first('space_id')).space_id;
    await w.t.request.patch(api(`/members/${w.member.id}`)).set(w.admin.auth).send({ role: 'guest', space_ids: [space] }).expect(200);
  });

  const empty = { secrets: [], salaries: [], payroll: null, secret_count: 0 };
  const computed = (values: Record<string, unknown>) => ({ secrets: values.secrets, salaries: values.salaries, payroll: values.payroll, secret_count: values.secret_count });

  it('shows the guest links, lookups, rollups and counts as empty, in every read, while members see them', async () => {
    const full = (await w.t.request.get(records(w.db, `/${ann}`)).set(w.editor.auth).expect(200)).body.values;
    assert.deepEqual(computed(full), { secrets: [{ id: projectX, title: 'Project X' }], salaries: [250000], payroll: 250000, secret_count: 1 });

    assert.deepEqual(computed((await w.t.request.get(records(w.db, `/${ann}`)).set(w.member.auth).expect(200)).body.values), empty);
    const number = (await w.t.db(w.table).where({ id: ann }).first('number')).number;
    assert.deepEqual(computed((await w.t.request.get(records(w.db, `/by-number/${number}`)).set(w.member.auth).expect(200)).body.values), empty);
    const listed = (await w.t.request.get(records(w.db)).set(w.member.auth).expect(200)).body.data;
    assert.deepEqual(listed.map((r: { values: Record<string, unknown> }) => computed(r.values)), [empty, empty, empty]);
    const picked = (await query({ fields: ['name', 'secrets', 'salaries'] }).expect(200)).body.data[0].values;
    assert.deepEqual(picked, { name: 'Ann', secrets: [], salaries: [] });
    // The raw text of the answers names nothing of Secrets.
    const text = JSON.stringify(listed);
    for (const leak of ['Project X', '250000', projectX]) assert.ok(!text.includes(leak), leak);
  });

  it('filters and sorts the guest reads as on empty links: no record is told apart by what it links', async () => {
    assert.deepEqual(ids(await query({ filter: { field: 'secrets', op: 'has_any_of', value: [projectX] } }).expect(200)), []);
    assert.equal((await query({ filter: { field: 'secrets', op: 'has_none_of', value: [projectX] } }).expect(200)).body.data.length, 3);
    assert.equal((await query({ filter: { field: 'secrets', op: 'is_empty' } }).expect(200)).body.data.length, 3);
    assert.deepEqual(ids(await query({ filter: { field: 'secret_count', op: 'gt', value: 0 } }).expect(200)), []);
    assert.deepEqual(ids(await query({ filter: { field: 'payroll', op: 'gt', value: 100000 } }).expect(200)), []);
    assert.deepEqual(ids(await query({ filter: { field: 'salaries', op: 'eq', value: 250000 } }).expect(200)), []);
    // A path through the link is accepted whatever it names: an error would say which fields Secrets has.
    assert.deepEqual(ids(await query({ filter: { field: 'secrets.salary', op: 'gt', value: 0 } }).expect(200)), []);
    assert.deepEqual(ids(await query({ filter: { field: 'secrets.no_such_field', op: 'eq', value: 1 } }).expect(200)), []);
    assert.equal((await query({ filter: { field: 'secrets.salary', op: 'neq', value: 1 } }).expect(200)).body.data.length, 3);
    // Sorting by what it cannot see keeps manual order (every key is empty).
    for (const sort of ['secrets', 'salaries', 'payroll', 'secret_count']) {
      const sorted = ids(await query({ sorts: [{ field: sort, direction: 'desc' }] }).expect(200));
      assert.deepEqual(sorted.slice(0, 2), [ann, bob], sort);
    }
    // The same filter by an editor finds Ann.
    assert.deepEqual(ids(await query({ filter: { field: 'secrets', op: 'has_any_of', value: [projectX] } }, w.editor).expect(200)), [ann]);
    assert.deepEqual(ids(await query({ filter: { field: 'payroll', op: 'gt', value: 100000 } }, w.editor).expect(200)), [ann]);
  });

  it("shows the guest a field's options without the database, relation or fields it reaches", async () => {
    const fields = (await w.t.request.get(api(`/databases/${w.db}/fields`)).set(w.member.auth).expect(200)).body.data;
    const byName = new Map(fields.map((f: { api_name: string; options: object }) => [f.api_name, f.options]));
    assert.deepEqual(byName.get('secrets'), { side: 'from', many: true, kind: 'many_to_many' });
    const linkId = fields.find((f: { api_name: string }) => f.api_name === 'secrets').id;
    assert.deepEqual(byName.get('salaries'), { link_field_id: linkId, side: 'from', kind: 'many_to_many' });
    assert.deepEqual(byName.get('payroll'), { link_field_id: linkId, side: 'from', kind: 'many_to_many', function: 'sum' });
    const one = (await w.t.request.get(api(`/databases/${w.db}/fields/salaries`)).set(w.member.auth).expect(200)).body;
    assert.deepEqual(one.options, byName.get('salaries'));
    const database = (await w.t.request.get(api(`/databases/${w.db}`)).set(w.member.auth).expect(200)).body;
    assert.ok(!JSON.stringify(database).includes(secrets));
    assert.ok(!JSON.stringify(fields).includes(secrets));
    // A member of the workspace sees the whole options.
    const full = (await w.t.request.get(api(`/databases/${w.db}/fields/salaries`)).set(w.editor.auth).expect(200)).body;
    assert.equal(full.options.target_database_id, secrets);
  });

  it('answers a guest who writes with what it may see, while the events carry the whole record', async () => {
    // A grant lets the guest edit D: it still cannot see Secrets.
    await w.t.request.put(api('/access')).set(w.admin.auth).send({ scope_type: 'database', scope_id: w.db, user_id: w.member.id, role: 'editor' }).expect(201);
    const patched = (await w.t.request.patch(records(w.db, `/${ann}`)).set(w.member.auth).send({ values: { name: 'Ann B.' } }).expect(200)).body;
    assert.deepEqual(computed(patched.values), empty);
    const bulk = (await w.t.request.patch(records(w.db)).set(w.member.auth).send({ records: [{ id: bob, values: { name: 'Bob B.' } }] }).expect(200)).body;
    assert.deepEqual(computed(bulk.data[0].values), empty);
    const copy = (await w.t.request.post(records(w.db, `/${ann}/duplicate`)).set(w.member.auth).expect(201)).body;
    assert.deepEqual(computed(copy.values), empty);
    const moved = (await w.t.request.post(records(w.db, `/${ann}/move`)).set(w.member.auth).send({ after_id: bob }).expect(200)).body;
    assert.deepEqual(computed(moved.values), empty);
    // The link itself is still there: the editor sees it, and so does the record.updated event.
    assert.equal((await w.t.request.get(records(w.db, `/${ann}`)).set(w.editor.auth).expect(200)).body.values.secrets.length, 1);
    const events = await recordedEvents(w.t, { name: 'record.updated', workspace_id: w.ws });
    const last = events.map((e: { payload: unknown }) => (typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload)).find((p: { after: { id: string; values: { name: string } } }) => p.after.values.name === 'Ann B.');
    assert.deepEqual(last.after.values.secrets, [{ id: projectX, title: 'Project X' }]);
    // Linking a record of Secrets by id is refused like an unknown record.
    await w.t.request.patch(records(w.db, `/${bob}`)).set(w.member.auth).send({ values: { secrets: [projectX] } }).expect(422);
  });

  it('leaves the links a guest cannot see as they are, whatever it writes; its duplicate carries none of them', async () => {
    await w.t.request.put(api('/access')).set(w.admin.auth).send({ scope_type: 'database', scope_id: w.db, user_id: w.member.id, role: 'editor' }).expect(201);
    const linked = async (id: string) => ((await w.t.request.get(records(w.db, `/${id}`)).set(w.editor.auth).expect(200)).body.values.secrets as Array<{ id: string }>).map((l) => l.id);
    const as = w.member.auth;
    // Emptying the cell, as the guest sees it already: 200, what it sent is what it reads, the link stays.
    for (const secretsCell of [[], null]) {
      const res = (await w.t.request.patch(records(w.db, `/${ann}`)).set(as).send({ values: { name: 'Ann', secrets: secretsCell } }).expect(200)).body;
      assert.deepEqual(res.values.secrets, []);
      assert.deepEqual(await linked(ann), [projectX], JSON.stringify(secretsCell));
    }
    const bulk = (await w.t.request.patch(records(w.db)).set(as).send({ records: [{ id: ann, values: { secrets: [] } }] }).expect(200)).body;
    assert.deepEqual(bulk.errors, []);
    assert.deepEqual(await linked(ann), [projectX]);
    const moved = (await w.t.request.post(records(w.db, `/${ann}/move`)).set(as).send({ after_id: bob, values: { secrets: null } }).expect(200)).body;
    assert.deepEqual(moved.values.secrets, []);
    assert.deepEqual(await linked(ann), [projectX]);
    await w.t.request.delete(records(w.db, `/${ann}/links/secrets/${projectX}`)).set(as).expect(204);
    assert.deepEqual(await linked(ann), [projectX]);
    // A copy made by the guest carries nothing it could not see; one made by a member carries the link.
    const copy = (await w.t.request.post(records(w.db, `/${ann}/duplicate`)).set(as).expect(201)).body;
    assert.deepEqual(await linked(copy.id), []);
    const memberCopy = (await w.t.request.post(records(w.db, `/${ann}/duplicate`)).set(w.editor.auth).expect(201)).body;
    assert.deepEqual(await linked(memberCopy.id), [projectX]);
    assert.deepEqual(await linked(ann), [projectX]);
    // Writes by a member who sees Secrets still replace and unlink.
    await w.t.request.delete(records(w.db, `/${memberCopy.id}/links/secrets/${projectX}`)).set(w.editor.auth).expect(204);
    assert.deepEqual(await linked(memberCopy.id), []);
    await w.t.request.patch(records(w.db, `/${ann}`)).set(w.editor.auth).send({ values: { secrets: [] } }).expect(200);
    assert.deepEqual(await linked(ann), []);
  });

  it('refuses a guest a lookup, rollup or count through a link into what it cannot see, before naming anything there', async () => {
    await w.t.request.put(api('/access')).set(w.admin.auth).send({ scope_type: 'database', scope_id: w.db, user_id: w.member.id, role: 'creator' }).expect(201);
    for (const options of [
      { link_field_id: 'secrets', target_field_id: 'salary' },
      { link_field_id: 'secrets', target_field_id: 'no_such_field' },
    ]) {
      const res = await field(w.db, { name: 'Peek', type: 'lookup', options }, w.member).expect(422);
      assert.deepEqual(pointers(res), ['/options/link_field_id']);
      assert.ok(!JSON.stringify(res.body).includes('no_such_field'));
    }
    await field(w.db, { name: 'Peek', type: 'count', options: { link_field_id: 'secrets' } }, w.member).expect(422);
    assert.equal(await w.t.db('fields').where({ database_id: w.db, name: 'Peek' }).first('id'), undefined);
  });
});
