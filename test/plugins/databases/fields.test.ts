import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel } from '../../../core/testing.ts';
import { createWorkspace, signUp, type SignedUpUser } from '../../helpers.ts';

describe('fields', () => {
  let t: TestKernel;
  let admin: SignedUpUser;
  let member: SignedUpUser;
  let ws: string;
  let db: string;
  let table: string;

  const fields = (path = '') => `/api/v1/workspaces/${ws}/databases/${db}/fields${path}`;
  const add = (body: object, user = admin) => t.request.post(fields()).set(user.auth).send(body);
  const columnType = async (column: string) =>
    (await t.db('information_schema.columns').where({ table_schema: t.db.raw('current_schema()'), table_name: table, column_name: column }).first('data_type'))?.data_type;
  const pointers = (res: { body: { errors: Array<{ pointer: string }> } }) => res.body.errors.map((e) => e.pointer);

  before(async () => {
    t = await startTestKernel();
    admin = await signUp(t);
    member = await signUp(t);
    ws = (await createWorkspace(t, admin)).id;
    await t.db('workspace_members').insert({ workspace_id: ws, user_id: member.id, role: 'member' });
    const space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(admin.auth).send({ name: 'S' }).expect(201)).body.id;
    db = (await t.request.post(`/api/v1/workspaces/${ws}/databases`).set(admin.auth).send({ name: 'D', space_id: space }).expect(201)).body.id;
    table = (await t.db('databases').where({ id: db }).first('table_name')).table_name;
  });
  after(() => t.stop());

  it('adds a field with its own natively typed column, deriving a unique api_name from the name', async () => {
    const due = await add({ name: 'Due date', type: 'date' }).expect(201);
    assert.equal(due.body.api_name, 'due_date');
    const row = await t.db('fields').where({ id: due.body.id }).first('column_name');
    assert.equal(await columnType(row.column_name), 'date');
    const again = await add({ name: 'Due Date!', type: 'number' }).expect(201);
    assert.equal(again.body.api_name, 'due_date_2');
    assert.equal(await columnType((await t.db('fields').where({ id: again.body.id }).first('column_name')).column_name), 'numeric');
    assert.equal((await t.request.get(fields('/due_date')).set(member.auth).expect(200)).body.id, due.body.id);
    assert.equal((await t.request.get(fields(`/${due.body.id}`)).set(member.auth).expect(200)).body.api_name, 'due_date');
  });

  it('refuses unknown types, invalid options, taken names and api_names with 422 and pointers, adding nothing', async () => {
    await add({ name: 'Taken', type: 'text', api_name: 'taken' }).expect(201);
    const before = await t.db('fields').where({ database_id: db }).count({ n: '*' });
    assert.deepEqual(pointers(await add({ name: 'X', type: 'nope' }).expect(422)), ['/type']);
    assert.deepEqual(pointers(await add({ name: 'X', type: 'rating', options: { max: 99 } }).expect(422)), ['/options/max']);
    assert.deepEqual(pointers(await add({ name: 'taken', type: 'text' }).expect(422)), ['/name']);
    assert.deepEqual(pointers(await add({ name: 'Other', type: 'text', api_name: 'taken' }).expect(422)), ['/api_name']);
    assert.deepEqual(pointers(await add({ name: 'Other', type: 'text', api_name: 'Bad Name' }).expect(422)), ['/api_name']);
    assert.deepEqual(pointers(await add({ name: 'Other', type: 'text', column_name: 'x' }).expect(422)), ['/column_name']);
    await add({ name: 'Mine', type: 'text' }, member).expect(403);
    assert.deepEqual(await t.db('fields').where({ database_id: db }).count({ n: '*' }), before);
  });

  it('gives select choices stable ids', async () => {
    const res = await add({ name: 'Status', type: 'single_select', options: { choices: [{ label: 'Open' }, { label: 'Done', color: 'green' }] } }).expect(201);
    const [open, done] = res.body.options.choices;
    assert.match(open.id, /^[0-9a-f-]{36}$/);
    assert.equal(done.color, 'green');
    const patched = await t.request.patch(fields('/status')).set(admin.auth).send({ options: { choices: [{ id: done.id, label: 'Finished' }, { label: 'Open' }] } }).expect(200);
    assert.deepEqual(patched.body.options.choices.map((c: { id: string; label: string }) => [c.id, c.label]), [[done.id, 'Finished'], [open.id, 'Open']]);
  });

  it('renames without touching the api_name unless asked', async () => {
    const f = (await add({ name: 'Budget', type: 'currency' }).expect(201)).body;
    const renamed = await t.request.patch(fields(`/${f.id}`)).set(admin.auth).send({ name: 'Cost' }).expect(200);
    assert.equal(renamed.body.name, 'Cost');
    assert.equal(renamed.body.api_name, 'budget');
    const moved = await t.request.patch(fields('/budget')).set(admin.auth).send({ api_name: 'cost' }).expect(200);
    assert.equal(moved.body.api_name, 'cost');
    await t.request.get(fields('/budget')).set(admin.auth).expect(404);
  });

  it('soft-deletes a field reporting records_with_value, and restores it with its values', async () => {
    const f = (await add({ name: 'Score', type: 'number' }).expect(201)).body;
    const { column_name } = await t.db('fields').where({ id: f.id }).first('column_name');
    await t.db(table).insert([
      { position: 'a', [column_name]: 1 },
      { position: 'b', [column_name]: 2 },
      { position: 'c', [column_name]: null },
      { position: 'd', [column_name]: 4, deleted_at: new Date() },
    ]);
    const res = await t.request.delete(fields('/score')).set(admin.auth).expect(200);
    assert.deepEqual(res.body, { records_with_value: 2 });
    const live = (await t.request.get(fields()).set(admin.auth).expect(200)).body.data.map((x: { api_name: string }) => x.api_name);
    assert.ok(!live.includes('score'));
    const deleted = (await t.request.get(fields()).query({ deleted: true }).set(admin.auth).expect(200)).body.data.map((x: { api_name: string }) => x.api_name);
    assert.deepEqual(deleted, ['score']);
    await t.request.get(fields('/score')).set(admin.auth).expect(404);

    const restored = await t.request.post(fields('/score/restore')).set(admin.auth).expect(200);
    assert.equal(restored.body.id, f.id);
    assert.deepEqual((await t.db(table).whereNotNull(column_name).orderBy('position').pluck(column_name)).map(Number), [1, 2, 4]);
  });

  it('keeps the title field (409) and refuses restoring over a live name (409)', async () => {
    assert.equal((await t.request.delete(fields('/name')).set(admin.auth).expect(409)).body.code, 'conflict');
    await add({ name: 'Twin', type: 'text' }).expect(201);
    await t.request.delete(fields('/twin')).set(admin.auth).expect(200);
    await add({ name: 'Twin', type: 'text' }).expect(201);
    await t.request.post(fields('/twin/restore')).set(admin.auth).expect(409);
  });
});
