import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, createWorkspace, signUp, type SignedUpUser } from '../../../core/testing.ts';

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
    assert.equal((await t.request.delete(fields('/name')).set(admin.auth).expect(409)).body.code, 'title_field');
    await add({ name: 'Twin', type: 'text' }).expect(201);
    await t.request.delete(fields('/twin')).set(admin.auth).expect(200);
    await add({ name: 'Twin', type: 'text' }).expect(201);
    await t.request.post(fields('/twin/restore')).set(admin.auth).expect(409);
  });
});

describe('fields: how many a database may hold', () => {
  let t: TestKernel;
  let admin: SignedUpUser;
  let ws: string;
  let space: string;

  const api = (path: string) => `/api/v1/workspaces/${ws}${path}`;
  const newDatabase = async (name: string) => (await t.request.post(api('/databases')).set(admin.auth).send({ name, space_id: space }).expect(201)).body as { id: string; fields: unknown[] };
  const add = (db: string, body: object) => t.request.post(api(`/databases/${db}/fields`)).set(admin.auth).send(body);
  const live = async (db: string) => (await t.db('fields').where({ database_id: db }).whereNull('deleted_at').count({ n: '*' }))[0].n;
  const columns = async (db: string) => {
    const { table_name } = await t.db('databases').where({ id: db }).first('table_name');
    return (await t.db('information_schema.columns').where({ table_schema: t.db.raw('current_schema()'), table_name }).pluck('column_name')).length;
  };

  before(async () => {
    t = await startTestKernel({ config: { plugins: { databases: { options: { maxFields: 8 } } } } });
    admin = await signUp(t);
    ws = (await createWorkspace(t, admin)).id;
    space = (await t.request.post(api('/spaces')).set(admin.auth).send({ name: 'S' }).expect(201)).body.id;
  });
  after(() => t.stop());

  it('refuses a field past maxFields live fields (422 limit_exceeded), adding no column; deleting one makes room, restoring it past the limit is refused', async () => {
    const { id: db, fields } = await newDatabase('Full');
    for (let i = fields.length; i < 8; i++) await add(db, { name: `F${i}`, type: 'number' }).expect(201);
    const before = await columns(db);
    const refused = await add(db, { name: 'One more', type: 'number' }).expect(422);
    assert.equal(refused.body.code, 'limit_exceeded');
    assert.equal(refused.body.limit, 8);
    assert.match(refused.body.detail, /at most 8/);
    assert.equal(await columns(db), before, 'no column added');
    assert.equal(Number(await live(db)), 8);

    await t.request.delete(api(`/databases/${db}/fields/f7`)).set(admin.auth).expect(200);
    await add(db, { name: 'Instead', type: 'text' }).expect(201);
    assert.equal((await t.request.post(api(`/databases/${db}/fields/f7/restore`)).set(admin.auth).expect(422)).body.code, 'limit_exceeded');
  });

  it('counts a relation\'s link fields: a full database cannot be related', async () => {
    const { id: full, fields } = await newDatabase('Full too');
    for (let i = fields.length; i < 8; i++) await add(full, { name: `F${i}`, type: 'checkbox' }).expect(201);
    const { id: other, fields: otherFields } = await newDatabase('Other');
    const relate = (from: string, to: string) =>
      t.request.post(api('/relations')).set(admin.auth).send({ from_database_id: from, to_database_id: to, kind: 'many_to_many', from_field_name: 'Others', to_field_name: 'Fulls' });
    assert.equal((await relate(other, full).expect(422)).body.code, 'limit_exceeded');
    assert.equal((await t.db('relations').where({ workspace_id: ws })).length, 0);
    assert.equal(Number(await live(other)), otherFields.length, 'no link field left on the other side');
    await relate(other, other).expect(201);
  });

  it('refuses a field once the records table holds the 1,600 columns PostgreSQL allows (deleted fields keep theirs)', async () => {
    const { id: db } = await newDatabase('Wide');
    const { table_name } = await t.db('databases').where({ id: db }).first('table_name');
    // Columns as deleted fields leave them, made by SQL: 1,600 fields through the API would take minutes.
    const room = 1600 - (await columns(db));
    await t.db.raw(`ALTER TABLE ?? ${Array.from({ length: room }, (_, i) => `ADD COLUMN c${i} boolean`).join(', ')}`, [table_name]);
    const refused = await add(db, { name: 'Wider', type: 'number' }).expect(422);
    assert.equal(refused.body.code, 'limit_exceeded');
    assert.match(refused.body.detail, /1600 columns/);
    assert.equal((await t.db('fields').where({ database_id: db, name: 'Wider' })).length, 0);
  });
});
