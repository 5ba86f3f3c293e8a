import { recordedEvents } from '../../../core/testing.ts';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { pointers, recordsWorld, type RecordsWorld } from './setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

describe('records: move', () => {
  let w: RecordsWorld;
  const create = async (name: string) => (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name } }).expect(201)).body;
  const createMany = async (...names: string[]) => {
    const out = [];
    for (const name of names) out.push(await create(name));
    return out;
  };
  const move = (id: string, body: object, auth = w.editor.auth) => w.t.request.post(w.url(`/${id}/move`)).set(auth).send(body);
  const order = async () => (await w.t.request.get(w.url('?limit=1000')).set(w.member.auth).expect(200)).body.data.map((r: { id: string }) => r.id);
  const row = (id: string) => w.t.db(w.table).where({ id }).first();
  const updated = () => recordedEvents(w.t, { name: 'record.updated', workspace_id: w.ws });

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await recordsWorld(undefined, kernel());
  });

  it('places a record right before or after another, bumping version and updated_by', async () => {
    const [a, b, c, d] = await createMany('A', 'B', 'C', 'D');
    const moved = (await move(d.id, { before_id: b.id }, w.admin.auth).expect(200)).body;
    assert.ok(a.position < moved.position && moved.position < b.position);
    assert.equal(moved.version, 2);
    assert.equal(moved.updated_by, w.admin.id);
    assert.equal(moved.values.name, 'D');
    assert.deepEqual(await order(), [a.id, d.id, b.id, c.id]);
    await move(a.id, { after_id: c.id }).expect(200);
    assert.deepEqual(await order(), [d.id, b.id, c.id, a.id]);
    await move(c.id, { before_id: d.id }).expect(200);
    assert.deepEqual(await order(), [c.id, d.id, b.id, a.id]);
    // Next to where it already is: same order, new position, new version.
    const again = (await move(d.id, { after_id: c.id }).expect(200)).body;
    assert.deepEqual(await order(), [c.id, d.id, b.id, a.id]);
    assert.equal(again.version, 3);
    const stored = await row(d.id);
    assert.equal(stored.position, again.position);
    assert.equal(stored.version, 3);
  });

  it('moves to the end without an anchor', async () => {
    const [a, b, c] = await createMany('A', 'B', 'C');
    await move(a.id, {}).expect(200);
    assert.deepEqual(await order(), [b.id, c.id, a.id]);
    const last = (await move(a.id, {}).expect(200)).body;
    assert.deepEqual(await order(), [b.id, c.id, a.id]);
    assert.equal(last.version, 3);
    // A record created afterwards still goes after it.
    const d = await create('D');
    assert.deepEqual(await order(), [b.id, c.id, a.id, d.id]);
  });

  it('keeps a strict order when records are moved into the same gap again and again', async () => {
    const [a, b, ...rest] = await createMany('A', 'B', 'R0', 'R1', 'R2', 'R3', 'R4', 'R5');
    for (const r of rest) await move(r.id, { before_id: b.id }).expect(200);
    assert.deepEqual(await order(), [a.id, ...rest.map((r) => r.id), b.id]);
    for (const r of rest) await move(r.id, { after_id: a.id }).expect(200);
    assert.deepEqual(await order(), [a.id, ...rest.map((r) => r.id).reverse(), b.id]);
  });

  it('changes cells and position in one transaction, with the errors of PATCH', async () => {
    const [a, b] = await createMany('A', 'B');
    const res = (await move(a.id, { after_id: b.id, values: { name: 'A moved', score: 4, done: true } }).expect(200)).body;
    assert.equal(res.values.name, 'A moved');
    assert.equal(res.values.score, 4);
    assert.equal(res.version, 2);
    assert.deepEqual(await order(), [b.id, a.id]);
    const stored = await row(a.id);
    assert.equal(stored[w.column.name], 'A moved');
    assert.equal(stored.version, 2);

    const bad = await move(a.id, { before_id: b.id, values: { name: 'never', score: 'high', nope: 1, owner: w.outsider.id } }).expect(422);
    assert.deepEqual(pointers(bad).sort(), ['/values/nope', '/values/owner', '/values/score']);
    assert.deepEqual(await order(), [b.id, a.id]);
    assert.equal((await row(a.id))[w.column.name], 'A moved');
    assert.equal((await row(a.id)).version, 2);
  });

  it('refuses both anchors, itself, and anchors that are no live record of this database, reporting cells too', async () => {
    const [a, b, gone] = await createMany('A', 'B', 'Gone');
    await w.t.request.delete(w.url(`/${gone.id}`)).set(w.editor.auth).expect(204);
    const space = (await w.t.db('databases').where({ id: w.db }).first('space_id')).space_id;
    const other = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/databases`).set(w.admin.auth).send({ name: 'Other', space_id: space }).expect(201)).body.id;
    const foreign = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/databases/${other}/records`).set(w.admin.auth).send({ values: { name: 'F' } }).expect(201)).body;
    const stored = await row(a.id);

    assert.deepEqual(pointers(await move(a.id, { before_id: b.id, after_id: b.id }).expect(422)), ['/after_id']);
    assert.deepEqual(pointers(await move(a.id, { before_id: a.id }).expect(422)), ['/before_id']);
    assert.deepEqual(pointers(await move(a.id, { after_id: randomUUID() }).expect(422)), ['/after_id']);
    assert.deepEqual(pointers(await move(a.id, { after_id: gone.id }).expect(422)), ['/after_id']);
    assert.deepEqual(pointers(await move(a.id, { before_id: foreign.id }).expect(422)), ['/before_id']);
    assert.deepEqual(pointers(await move(a.id, { before_id: 'b' }).expect(422)), ['/before_id']);
    assert.deepEqual(pointers(await move(a.id, { position: 'a0' }).expect(422)), ['/position']);
    assert.deepEqual(pointers(await move(a.id, { after_id: gone.id, values: { score: 'x' } }).expect(422)).sort(), ['/after_id', '/values/score']);
    assert.deepEqual(await row(a.id), stored);
  });

  it('answers 404 for an unknown or deleted record, 403 to a member, 404 to an outsider', async () => {
    const [a, b] = await createMany('A', 'B');
    await move(randomUUID(), { before_id: a.id }).expect(404);
    await w.t.request.delete(w.url(`/${b.id}`)).set(w.editor.auth).expect(204);
    await move(b.id, {}).expect(404);
    await move(a.id, {}, w.member.auth).expect(403);
    await move(a.id, {}, w.outsider.auth).expect(404);
    assert.equal((await row(a.id)).version, 1);
  });

  it('emits record.updated with the positions before and after', async () => {
    const [a, b] = await createMany('A', 'B');
    const n = (await updated()).length;
    const moved = (await move(a.id, { after_id: b.id }).expect(200)).body;
    const events = (await updated()).slice(n);
    assert.equal(events.length, 1);
    assert.equal(events[0].actor_id, w.editor.id);
    assert.equal(events[0].payload.database_id, w.db);
    assert.equal(events[0].payload.before.position, a.position);
    assert.equal(events[0].payload.before.version, 1);
    assert.deepEqual(events[0].payload.after, moved);
    await move(a.id, { before_id: a.id }).expect(422);
    assert.equal((await updated()).length, n + 1);
  });

  it('answers 409 when the neighbours share a position, and moving one of them clears the way', async () => {
    const rows = (await w.t.db(w.table).insert([{ position: 'a5' }, { position: 'a5' }]).returning('id')) as Array<{ id: string }>;
    const [x, y] = rows.map((r) => r.id).sort();
    const z = await create('Z');
    const stored = await row(z.id);
    const res = await move(z.id, { after_id: x }).expect(409);
    assert.equal(res.body.code, 'position_clash');
    await move(z.id, { before_id: y }).expect(409);
    assert.deepEqual(await row(z.id), stored);
    await move(y, {}).expect(200);
    await move(z.id, { after_id: x }).expect(200);
    assert.deepEqual(await order(), [x, z.id, y]);
  });

  it('gives records moved into one gap at the same time distinct positions', async () => {
    const [a, b, ...movers] = await createMany('A', 'B', 'M0', 'M1', 'M2', 'M3', 'M4', 'M5');
    const results = await Promise.all(movers.map((m) => move(m.id, { after_id: a.id })));
    assert.deepEqual(results.map((r) => r.status), movers.map(() => 200));
    const positions = results.map((r) => r.body.position as string);
    assert.equal(new Set(positions).size, movers.length);
    for (const p of positions) assert.ok(a.position < p && p < b.position);
    const list = await order();
    assert.equal(list[0], a.id);
    assert.equal(list.at(-1), b.id);
  });
});
