import { recordedEvents } from '../../../core/testing.ts';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { recordsWorld, type RecordsWorld } from './setup.ts';

describe('records: batch patch, delete and restore', () => {
  let w: RecordsWorld;
  const events = (name: string) => recordedEvents(w.t, { name });
  const create = async (n: number) =>
    (await w.t.request.post(w.url()).set(w.editor.auth).send({ records: Array.from({ length: n }, (_, i) => ({ values: { name: `R${i}` } })) }).expect(201)).body.data as Array<{ id: string; position: string; version: number }>;
  const row = (id: string) => w.t.db(w.table).where({ id }).first();

  before(async () => {
    w = await recordsWorld();
  });
  after(() => w.t.stop());

  it('applies the valid updates and reports unknown, deleted and invalid records per id', async () => {
    const [a, b, c, gone] = await create(4);
    await w.t.request.delete(w.url(`/${gone.id}`)).set(w.editor.auth).expect(204);
    const unknown = randomUUID();
    const updatedBefore = (await events('record.updated')).length;
    const res = await w.t.request
      .patch(w.url())
      .set(w.editor.auth)
      .send({
        records: [
          { id: a.id, values: { name: 'A2', score: 3 } },
          { id: unknown, values: { name: 'X' } },
          { id: b.id, values: { score: 'twelve', owner: w.outsider.id, name: 'never' } },
          { id: gone.id, values: { name: 'ghost' } },
          { id: c.id, values: { done: true } },
        ],
      })
      .expect(200);
    assert.deepEqual(res.body.data.map((r: { id: string }) => r.id), [a.id, c.id]);
    assert.equal(res.body.data[0].values.name, 'A2');
    assert.equal(res.body.data[0].version, 2);
    assert.equal(res.body.data[1].values.done, true);
    const errors = res.body.errors as Array<{ id: string; code: string; detail: string }>;
    assert.deepEqual(errors.map((e) => [e.id, e.code]), [[unknown, 'not_found'], [b.id, 'validation_failed'], [gone.id, 'not_found']]);
    assert.match(errors[1].detail, /\/values\/score/);
    assert.match(errors[1].detail, /\/values\/owner/);
    assert.doesNotMatch(errors[1].detail, /\/values\/name/);

    assert.equal((await row(a.id))[w.column.name], 'A2');
    assert.equal((await row(a.id)).version, 2);
    assert.equal((await row(b.id))[w.column.name], 'R1');
    assert.equal((await row(b.id)).version, 1);
    assert.equal((await row(gone.id))[w.column.name], 'R3');
    const updated = (await events('record.updated')).slice(updatedBefore);
    assert.deepEqual(updated.map((e) => e.payload.after.id), [a.id, c.id]);
    assert.equal(updated[0].payload.before.values.name, 'R0');
    assert.equal(updated[0].actor_id, w.editor.id);
  });

  it('stores every kind of cell in a batch, records changing different fields alike', async () => {
    const fields = `/api/v1/workspaces/${w.ws}/databases/${w.db}/fields`;
    await w.t.request.post(fields).set(w.admin.auth).send({ name: 'Tags', type: 'multi_select', options: { choices: [{ label: 'red' }, { label: 'blue, "dark"' }] } }).expect(201);
    await w.t.request.post(fields).set(w.admin.auth).send({ name: 'Meta', type: 'json' }).expect(201);
    const [a, b, c] = await create(3);
    const res = await w.t.request
      .patch(w.url())
      .set(w.editor.auth)
      .send({
        records: [
          { id: a.id, values: { tags: ['red', 'blue, "dark"'], meta: { deep: [1, 'two'] }, done: true } },
          { id: b.id, values: { score: 2.5, owner: w.member.id, stage: 'Open' } },
          { id: c.id, values: { tags: ['blue, "dark"'], meta: 'text', done: true } },
        ],
      })
      .expect(200);
    assert.deepEqual(res.body.errors, []);
    for (const record of res.body.data) {
      const fresh = (await w.t.request.get(w.url(`/${record.id}`)).set(w.member.auth).expect(200)).body;
      assert.deepEqual(record, fresh);
      assert.equal(fresh.version, 2);
    }
    const [ra, rb, rc] = res.body.data;
    assert.deepEqual(ra.values.tags.map((t: { label: string }) => t.label), ['red', 'blue, "dark"']);
    assert.deepEqual(ra.values.meta, { deep: [1, 'two'] });
    assert.equal(ra.values.done, true);
    assert.equal(rb.values.score, 2.5);
    assert.deepEqual(rb.values.owner, { id: w.member.id, name: 'Mia' });
    assert.equal(rb.values.stage.label, 'Open');
    assert.deepEqual(rc.values.tags.map((t: { label: string }) => t.label), ['blue, "dark"']);
    assert.equal(rc.values.meta, 'text');
  });

  it('refuses a duplicate id or more than 200 records with 422, changing nothing', async () => {
    const [a] = await create(1);
    const dup = await w.t.request
      .patch(w.url())
      .set(w.editor.auth)
      .send({ records: [{ id: a.id, values: { name: 'one' } }, { id: a.id, values: { name: 'two' } }] })
      .expect(422);
    assert.deepEqual(dup.body.errors.map((e: { pointer: string }) => e.pointer), ['/records/1/id']);
    const many = Array.from({ length: 201 }, (_, i) => ({ id: i === 0 ? a.id : randomUUID(), values: { name: 'many' } }));
    const tooMany = await w.t.request.patch(w.url()).set(w.editor.auth).send({ records: many }).expect(422);
    assert.ok(tooMany.body.errors.some((e: { pointer: string }) => e.pointer === '/records'));
    await w.t.request.patch(w.url()).set(w.editor.auth).send({ records: [] }).expect(422);
    const stored = await row(a.id);
    assert.equal(stored[w.column.name], 'R0');
    assert.equal(stored.version, 1);
  });

  it('deletes live records, skipping deleted and unknown ids, and emits record.deleted for each', async () => {
    const [a, b, c] = await create(3);
    await w.t.request.delete(w.url(`/${c.id}`)).set(w.editor.auth).expect(204);
    const deletedBefore = (await events('record.deleted')).length;
    const unknown = randomUUID();
    const res = await w.t.request.post(w.url('/delete')).set(w.editor.auth).send({ ids: [b.id, unknown, c.id, a.id, b.id] }).expect(200);
    assert.deepEqual(res.body, { data: [b.id, a.id] });
    assert.ok((await row(a.id)).deleted_at);
    assert.ok((await row(b.id)).deleted_at);
    await w.t.request.get(w.url(`/${a.id}`)).set(w.editor.auth).expect(404);
    const emitted = (await events('record.deleted')).slice(deletedBefore);
    assert.deepEqual(emitted.map((e) => e.payload.record.id).sort(), [a.id, b.id].sort());
  });

  it('restores deleted records where they were, skipping live and unknown ids', async () => {
    const [a, b, c] = await create(3);
    await w.t.request.post(w.url('/delete')).set(w.editor.auth).send({ ids: [b.id] }).expect(200);
    const restoredBefore = (await events('record.restored')).length;
    const res = await w.t.request.post(w.url('/restore')).set(w.editor.auth).send({ ids: [a.id, b.id, randomUUID()] }).expect(200);
    assert.deepEqual(res.body, { data: [b.id] });
    const back = (await w.t.request.get(w.url(`/${b.id}`)).set(w.member.auth).expect(200)).body;
    assert.equal(back.position, b.position);
    assert.equal(back.version, b.version);
    const list = (await w.t.request.get(w.url()).query({ limit: 1000 }).set(w.member.auth).expect(200)).body.data.map((r: { id: string }) => r.id);
    assert.ok(list.indexOf(a.id) < list.indexOf(b.id) && list.indexOf(b.id) < list.indexOf(c.id));
    const emitted = (await events('record.restored')).slice(restoredBefore);
    assert.deepEqual(emitted.map((e) => e.payload.record.id), [b.id]);
    assert.equal(emitted[0].actor_id, w.editor.id);
  });

  it('refuses more than 200 ids, or none, with 422, deleting nothing', async () => {
    const [a] = await create(1);
    const res = await w.t.request
      .post(w.url('/delete'))
      .set(w.editor.auth)
      .send({ ids: [a.id, ...Array.from({ length: 200 }, () => randomUUID())] })
      .expect(422);
    assert.ok(res.body.errors.some((e: { pointer: string }) => e.pointer === '/ids'));
    await w.t.request.post(w.url('/restore')).set(w.editor.auth).send({ ids: [] }).expect(422);
    await w.t.request.post(w.url('/delete')).set(w.editor.auth).send({ ids: ['nope'] }).expect(422);
    assert.equal((await row(a.id)).deleted_at, null);
  });

  it('lets a member read but not write in batch', async () => {
    const [a] = await create(1);
    await w.t.request.patch(w.url()).set(w.member.auth).send({ records: [{ id: a.id, values: { name: 'no' } }] }).expect(403);
    await w.t.request.post(w.url('/delete')).set(w.member.auth).send({ ids: [a.id] }).expect(403);
    await w.t.request.post(w.url('/delete')).set(w.outsider.auth).send({ ids: [a.id] }).expect(404);
    assert.equal((await row(a.id)).deleted_at, null);
  });
});
