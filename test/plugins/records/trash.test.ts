import assert from 'node:assert/strict';
import { recordsWorld, type RecordsWorld } from './setup.ts';

describe('records: trash and purge', () => {
  let w: RecordsWorld;
  const trash = () => `/api/v1/workspaces/${w.ws}/databases/${w.db}/trash`;
  const create = async (n: number) =>
    (await w.t.request.post(w.url()).set(w.editor.auth).send({ records: Array.from({ length: n }, (_, i) => ({ values: { name: `T${i}` } })) }).expect(201)).body.data as Array<{ id: string }>;
  const backdate = (id: string, at: string) => w.t.db(w.table).where({ id }).update({ deleted_at: at });

  before(async () => {
    w = await recordsWorld();
  });
  after(() => w.t.stop());

  it('lists deleted records newest deletion first, keyset paged, each with deleted_at', async () => {
    const [a, b, c, live] = await create(4);
    await w.t.request.post(w.url('/delete')).set(w.editor.auth).send({ ids: [a.id, b.id, c.id] }).expect(200);
    await backdate(a.id, '2026-01-03T00:00:00Z');
    await backdate(b.id, '2026-01-01T00:00:00Z');
    await backdate(c.id, '2026-01-03T00:00:00Z');
    const first = (await w.t.request.get(trash()).query({ limit: 2 }).set(w.member.auth).expect(200)).body;
    const tied = [a.id, c.id].sort().reverse();
    assert.deepEqual(first.data.map((r: { id: string }) => r.id), tied);
    assert.equal(first.data[0].deleted_at, '2026-01-03T00:00:00.000Z');
    assert.equal(first.data[0].values.name, first.data[0].id === a.id ? 'T0' : 'T2');
    const second = (await w.t.request.get(trash()).query({ limit: 2, cursor: first.next_cursor }).set(w.member.auth).expect(200)).body;
    assert.deepEqual(second.data.map((r: { id: string }) => r.id), [b.id]);
    assert.equal(second.next_cursor, null);
    assert.ok(![...first.data, ...second.data].some((r: { id: string }) => r.id === live.id));
  });

  it("refuses another database's trash cursor with 422", async () => {
    await w.t.request.post(w.url('/delete')).set(w.editor.auth).send({ ids: (await create(3)).map((r) => r.id) }).expect(200);
    const cursor = (await w.t.request.get(trash()).query({ limit: 1 }).set(w.member.auth).expect(200)).body.next_cursor;
    const space = (await w.t.db('databases').where({ id: w.db }).first('space_id')).space_id;
    const other = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/databases`).set(w.admin.auth).send({ name: 'E', space_id: space }).expect(201)).body.id;
    const res = await w.t.request.get(`/api/v1/workspaces/${w.ws}/databases/${other}/trash`).query({ cursor }).set(w.member.auth).expect(422);
    assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/query/cursor']);
    await w.t.request.get(trash()).query({ cursor }).set(w.member.auth).expect(200);
  });

  it('is readable by a member, not by an outsider', async () => {
    await w.t.request.get(trash()).set(w.outsider.auth).expect(404);
  });

  it('keeps the trash indexed in its order, on new records tables and, by a migration, on older ones', async () => {
    const trashIndex = async () => (await w.t.db.raw('SELECT to_regclass(?) AS i', [`${w.table}_trash`])).rows[0].i;
    assert.ok(await trashIndex(), 'made with the table');
    await w.t.db.raw('DROP INDEX ??', [`${w.table}_trash`]);
    await w.t.db('knex_migrations_databases').where('name', 'like', '%_trash_index').delete();
    await w.t.kernel.migrate();
    assert.ok(await trashIndex(), 'made again by the migration');
  });

  it('defines the daily purge job', () => {
    assert.ok(w.t.kernel.jobs.has('records.trash-purge'));
  });

  it('purges records deleted more than 30 days before now, in batches, keeping the rest', async () => {
    const rows = await create(5);
    await w.t.request.post(w.url('/delete')).set(w.editor.auth).send({ ids: rows.map((r) => r.id) }).expect(200);
    const now = new Date('2026-03-01T00:00:00Z');
    await backdate(rows[0].id, '2026-01-01T00:00:00Z');
    await backdate(rows[1].id, '2026-01-20T00:00:00Z');
    await backdate(rows[2].id, '2026-01-29T23:59:59Z');
    await backdate(rows[3].id, '2026-01-30T00:00:01Z');
    await backdate(rows[4].id, '2026-02-27T00:00:00Z');
    const older = (await w.t.db(w.table).where('deleted_at', '<', '2026-01-30T00:00:00Z').count({ n: '*' }))[0].n;
    const purged = await w.t.container.resolverFor('records')('records.trash').purge(now, 2);
    assert.equal(purged, Number(older));
    const left = new Set((await w.t.db(w.table).whereIn('id', rows.map((r) => r.id)).select('id')).map((r: { id: string }) => r.id));
    assert.deepEqual([...left].sort(), [rows[3].id, rows[4].id].sort());
    assert.ok(await w.t.db(w.table).whereNull('deleted_at').first('id'), 'live records stay');
    const restored = (await w.t.request.post(w.url('/restore')).set(w.editor.auth).send({ ids: [rows[0].id, rows[3].id] }).expect(200)).body;
    assert.deepEqual(restored.data, [rows[3].id]);
  });
});
