import assert from 'node:assert/strict';
import { pointers, recordsWorld, type RecordsWorld } from './setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

describe('records: reading', () => {
  let w: RecordsWorld;
  const create = async (values: Record<string, unknown>) => (await w.t.request.post(w.url()).set(w.editor.auth).send({ values }).expect(201)).body;
  const list = async (query = '') => (await w.t.request.get(w.url(query)).set(w.member.auth).expect(200)).body;

  /** Every page from the first, following next_cursor. */
  async function walk(limit: number, extra = ''): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { data: Array<{ id: string }>; next_cursor: string | null } = await list(`?limit=${limit}${extra}${cursor ? `&cursor=${cursor}` : ''}`);
      ids.push(...page.data.map((r) => r.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    return { ids, pages };
  }

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await recordsWorld(undefined, kernel());
  });

  it('gets a record by id and by number, as members see it', async () => {
    const r = await create({ name: 'Alpha', owner: w.member.id });
    const byId = (await w.t.request.get(w.url(`/${r.id}`)).set(w.member.auth).expect(200)).body;
    assert.deepEqual(byId, r);
    const byNumber = (await w.t.request.get(w.url(`/by-number/${r.number}`)).set(w.member.auth).expect(200)).body;
    assert.deepEqual(byNumber, r);
    await w.t.request.get(w.url(`/by-number/${r.number + 1000}`)).set(w.member.auth).expect(404);
    await w.t.request.get(w.url('/by-number/0')).set(w.member.auth).expect(404);
    await w.t.request.get(w.url('/by-number/abc')).set(w.member.auth).expect(404);
    await w.t.request.get(w.url('/00000000-0000-4000-8000-000000000000')).set(w.member.auth).expect(404);
  });

  it('does not find a record of another database by its id', async () => {
    const r = await create({ name: 'Mine' });
    const space = (await w.t.db('databases').where({ id: w.db }).first('space_id')).space_id;
    const other = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/databases`).set(w.admin.auth).send({ name: 'Other', space_id: space }).expect(201)).body.id;
    await w.t.request.get(`/api/v1/workspaces/${w.ws}/databases/${other}/records/${r.id}`).set(w.admin.auth).expect(404);
  });

  it('lists live records in manual order, paging with a cursor', async () => {
    const made = [];
    for (let i = 0; i < 7; i++) made.push((await create({ name: `R${i}` })).id);
    const first = await list('?limit=3');
    assert.equal(first.data.length, 3);
    assert.ok(first.next_cursor);
    const { ids, pages } = await walk(3);
    assert.deepEqual(ids, made);
    assert.equal(pages, 3);
    const all = await list();
    assert.equal(all.next_cursor, null);
    assert.equal(all.data.length, 7);
  });

  it('pages across equal positions (id breaks the tie) without duplicates or gaps', async () => {
    // Concurrent inserts can share a position: put ten rows on one position between two others.
    const rows = [{ position: 'a0' }, ...Array.from({ length: 10 }, () => ({ position: 'a1' })), { position: 'a2' }];
    const inserted = (await w.t.db(w.table).insert(rows).returning(['id', 'position'])) as Array<{ id: string; position: string }>;
    const expected = [...inserted].sort((x, y) => (x.position === y.position ? (x.id < y.id ? -1 : 1) : x.position < y.position ? -1 : 1)).map((r) => r.id);
    for (const limit of [1, 3, 4, 5]) {
      const { ids } = await walk(limit);
      assert.deepEqual(ids, expected, `limit ${limit}`);
    }
    // A record created afterwards goes after all of them.
    const last = await create({ name: 'Last' });
    assert.equal((await walk(5)).ids.at(-1), last.id);
  });

  it('orders positions as bytes (COLLATE "C"), not by locale', async () => {
    const inserted = (await w.t.db(w.table).insert([{ position: 'a0a' }, { position: 'a0Z' }, { position: 'a0B' }]).returning(['id', 'position'])) as Array<{ id: string; position: string }>;
    const byPosition = Object.fromEntries(inserted.map((r) => [r.position, r.id]));
    assert.deepEqual((await list()).data.map((r: { id: string }) => r.id), [byPosition.a0B, byPosition.a0Z, byPosition.a0a]);
  });

  it('leaves soft-deleted records out of the list', async () => {
    const a = await create({ name: 'a' });
    const b = await create({ name: 'b' });
    await w.t.request.delete(w.url(`/${a.id}`)).set(w.editor.auth).expect(204);
    assert.deepEqual((await list()).data.map((r: { id: string }) => r.id), [b.id]);
  });

  it('searches the title case-insensitively with % and _ taken literally', async () => {
    const pct = await create({ name: 'Grew 100% this year' });
    const under = await create({ name: 'snake_case name' });
    await create({ name: 'Grew 1000 this year' });
    await create({ name: 'snakeXcase' });
    const plain = await create({ name: 'PLAIN text' });
    await create({ name: null });
    const ids = async (q: string) => (await list(`?q=${encodeURIComponent(q)}`)).data.map((r: { id: string }) => r.id);
    assert.deepEqual(await ids('100%'), [pct.id]);
    assert.deepEqual(await ids('%'), [pct.id]);
    assert.deepEqual(await ids('e_c'), [under.id]);
    assert.deepEqual(await ids('plain'), [plain.id]);
    assert.deepEqual(await ids('nothing like it'), []);
    // Paging keeps the filter.
    const page = await list(`?q=${encodeURIComponent('e')}&limit=1`);
    assert.equal(page.data.length, 1);
    const next = await list(`?q=e&limit=100&cursor=${page.next_cursor}`);
    assert.ok(!next.data.some((r: { id: string }) => r.id === page.data[0].id));
  });

  it('refuses a limit over 1000 and a forged cursor with 422', async () => {
    assert.deepEqual(pointers(await w.t.request.get(w.url('?limit=1001')).set(w.member.auth).expect(422)), ['/query/limit']);
    assert.deepEqual(pointers(await w.t.request.get(w.url('?cursor=bm9wZQ')).set(w.member.auth).expect(422)), ['/query/cursor']);
    await w.t.request.get(w.url('?limit=1000')).set(w.member.auth).expect(200);
  });

  it('shows the current names of users in user cells and of creators', async () => {
    const r = await create({ owner: w.member.id });
    assert.deepEqual(r.values.owner, { id: w.member.id, name: 'Mia' });
    await w.t.db('users').where({ id: w.member.id }).update({ name: 'Mia Renamed' });
    const [listed] = (await list()).data;
    assert.deepEqual(listed.values.owner, { id: w.member.id, name: 'Mia Renamed' });
    assert.deepEqual(listed.values.created_by, { id: w.editor.id, name: 'Eddie' });
  });
});
