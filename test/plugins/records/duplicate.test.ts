import { recordedEvents } from '../../../core/testing.ts';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { recordsWorld, type RecordsWorld } from './setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

describe('records: duplicate', () => {
  let w: RecordsWorld;
  const create = async (values: Record<string, unknown>) => (await w.t.request.post(w.url()).set(w.editor.auth).send({ values }).expect(201)).body;
  const duplicate = (id: string, auth = w.admin.auth) => w.t.request.post(w.url(`/${id}/duplicate`)).set(auth);
  const order = async () => (await w.t.request.get(w.url('?limit=1000')).set(w.member.auth).expect(200)).body.data.map((r: { id: string }) => r.id);
  const count = async () => Number((await w.t.db(w.table).count({ n: '*' }))[0].n);
  const created = () => recordedEvents(w.t, { name: 'record.created', workspace_id: w.ws });

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await recordsWorld(undefined, kernel());
  });

  it('copies every writable cell as stored and gives the copy its own number, version, creator and times', async () => {
    const fields = `/api/v1/workspaces/${w.ws}/databases/${w.db}/fields`;
    await w.t.request.post(fields).set(w.admin.auth).send({ name: 'Tags', type: 'multi_select', options: { choices: [{ label: 'x' }, { label: 'y' }] } }).expect(201);
    await w.t.request.post(fields).set(w.admin.auth).send({ name: 'Data', type: 'json' }).expect(201);
    const source = await create({ name: 'Original', score: 2.5, done: true, owner: w.member.id, stage: 'Open', tags: ['x', 'y'], data: [1, { a: [true] }] });
    await w.t.request.patch(w.url(`/${source.id}`)).set(w.editor.auth).send({ values: { name: 'Original v2' } }).expect(200);
    const res = await duplicate(source.id).expect(201);
    const copy = res.body;
    assert.notEqual(copy.id, source.id);
    assert.ok(copy.number > source.number);
    assert.equal(copy.version, 1);
    assert.equal(copy.created_by, w.admin.id);
    assert.equal(copy.updated_by, w.admin.id);
    assert.deepEqual(copy.values.created_by, { id: w.admin.id, name: 'Ada' });
    assert.ok(copy.created_at >= source.created_at);
    for (const cell of ['score', 'done', 'owner', 'stage', 'tags', 'data']) assert.deepEqual(copy.values[cell], source.values[cell], cell);
    assert.equal(copy.values.name, 'Original v2');
    assert.deepEqual(copy.values.data, [1, { a: [true] }]);
    assert.deepEqual(copy.values.tags.map((t: { label: string }) => t.label), ['x', 'y']);
    assert.deepEqual((await w.t.request.get(w.url(`/${copy.id}`)).set(w.member.auth).expect(200)).body, copy);

    const stored = await w.t.db(w.table).where({ id: copy.id }).first();
    assert.equal(stored[w.column.owner], w.member.id);
    assert.equal(stored.created_by, w.admin.id);
    assert.equal(stored.deleted_at, null);
    const original = await w.t.db(w.table).where({ id: source.id }).first();
    assert.equal(original.version, 2);
    assert.equal(original.updated_by, w.editor.id);
  });

  it('places the copy right after its source, before the next live record', async () => {
    const [a, b, c] = [await create({ name: 'A' }), await create({ name: 'B' }), await create({ name: 'C' })];
    const a1 = (await duplicate(a.id).expect(201)).body;
    assert.ok(a.position < a1.position && a1.position < b.position);
    assert.deepEqual(await order(), [a.id, a1.id, b.id, c.id]);
    const a2 = (await duplicate(a.id).expect(201)).body;
    const c1 = (await duplicate(c.id).expect(201)).body;
    assert.deepEqual(await order(), [a.id, a2.id, a1.id, b.id, c.id, c1.id]);
    // A deleted record between the source and the next one does not count.
    const x = (await duplicate(b.id).expect(201)).body;
    await w.t.request.delete(w.url(`/${x.id}`)).set(w.editor.auth).expect(204);
    const b1 = (await duplicate(b.id).expect(201)).body;
    assert.deepEqual(await order(), [a.id, a2.id, a1.id, b.id, b1.id, c.id, c1.id]);
  });

  it('emits record.created with duplicated_from', async () => {
    const source = await create({ name: 'Evented' });
    const copy = (await duplicate(source.id, w.editor.auth).expect(201)).body;
    const event = (await created()).find((e: any) => e.payload.record.id === copy.id);
    assert.ok(event);
    assert.equal(event.actor_id, w.editor.id);
    assert.equal(event.workspace_id, w.ws);
    assert.deepEqual(event.payload, { database_id: w.db, record: copy, duplicated_from: source.id });
  });

  it('answers 404 for an unknown, deleted or foreign record and stores nothing', async () => {
    const gone = await create({ name: 'Gone' });
    await w.t.request.delete(w.url(`/${gone.id}`)).set(w.editor.auth).expect(204);
    const space = (await w.t.db('databases').where({ id: w.db }).first('space_id')).space_id;
    const other = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/databases`).set(w.admin.auth).send({ name: 'Other', space_id: space }).expect(201)).body.id;
    const before = await count();
    const events = (await created()).length;
    await duplicate(randomUUID()).expect(404);
    await duplicate(gone.id).expect(404);
    await w.t.request.post(`/api/v1/workspaces/${w.ws}/databases/${other}/records/${(await create({ name: 'Here' })).id}/duplicate`).set(w.admin.auth).expect(404);
    assert.equal(await count(), before + 1);
    assert.equal((await created()).length, events + 1);
  });

  it('needs editor: a member gets 403, an outsider 404', async () => {
    const source = await create({ name: 'Mine' });
    const before = await count();
    await duplicate(source.id, w.member.auth).expect(403);
    await duplicate(source.id, w.outsider.auth).expect(404);
    assert.equal(await count(), before);
  });

  it('replays the first answer for a repeated Idempotency-Key, making one copy', async () => {
    const source = await create({ name: 'Once' });
    const before = await count();
    const first = await duplicate(source.id).set('Idempotency-Key', 'dup-1').expect(201);
    const again = await duplicate(source.id).set('Idempotency-Key', 'dup-1').expect(201);
    assert.equal(again.headers['idempotency-replayed'], 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal(await count(), before + 1);
    const other = await duplicate(source.id).set('Idempotency-Key', 'dup-2').expect(201);
    assert.notEqual(other.body.id, first.body.id);
    assert.equal(await count(), before + 2);
  });

  it('answers 409 when the source and the next record share a position, storing nothing', async () => {
    const rows = (await w.t.db(w.table).insert([{ position: 'a5' }, { position: 'a5' }]).returning('id')) as Array<{ id: string }>;
    const [first] = rows.map((r) => r.id).sort();
    const before = await count();
    const res = await duplicate(first).expect(409);
    assert.equal(res.body.code, 'position_clash');
    assert.equal(await count(), before);
  });
});
