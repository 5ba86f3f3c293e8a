import assert from 'node:assert/strict';
import { pointers, recordsWorld, type RecordsWorld } from './setup.ts';

type Page = { data: Array<{ id: string; values: Record<string, any> }>; next_cursor: string | null; count?: number; count_exact?: boolean };

describe('records: query', () => {
  let w: RecordsWorld;
  const ids: Record<string, string> = {};
  const create = async (values: Record<string, unknown>) => (await w.t.request.post(w.url()).set(w.editor.auth).send({ values }).expect(201)).body;
  const query = (body: object) => w.t.request.post(w.url('/query')).set(w.member.auth).send(body);
  const names = (page: Page) => page.data.map((r) => r.values.name);

  /** Every page of a query, following next_cursor. */
  async function all(body: object, limit: number): Promise<string[]> {
    const out: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = (await query({ ...body, limit, ...(cursor ? { cursor } : {}) }).expect(200)).body;
      out.push(...names(page));
      cursor = page.next_cursor;
    } while (cursor);
    return out;
  }

  before(async () => {
    w = await recordsWorld();
    const rows: Array<[string, number | null, boolean, string | null, string | null]> = [
      ['apple', 3, true, 'Open', w.member.id],
      ['Banana', 1, false, 'Closed', null],
      ['cherry', null, false, null, w.editor.id],
      ['date', 5, true, 'Open', w.member.id],
      ['Elder', 3, false, 'Closed', null],
      ['fig', null, true, 'Open', null],
      ['grape 100%', 2, false, null, w.editor.id],
    ];
    for (const [name, score, done, stage, owner] of rows) ids[name] = (await create({ name, score, done, stage, owner })).id;
  });
  after(() => w.t.stop());

  it('filters with and/or/not and sorts with empty cells last in both directions', async () => {
    const open = (await query({ filter: { and: [{ field: 'stage', op: 'eq', value: 'Open' }, { field: 'score', op: 'gte', value: 3 }] }, sorts: [{ field: 'score', direction: 'desc' }] }).expect(200)).body;
    assert.deepEqual(names(open), ['date', 'apple']);
    assert.equal(open.next_cursor, null);
    // apple and Elder (3) and cherry and fig (empty) tie: ids decide
    const byId = (a: string, b: string) => (ids[a] < ids[b] ? [a, b] : [b, a]);
    assert.deepEqual(await all({ sorts: [{ field: 'score' }] }, 2), ['Banana', 'grape 100%', ...byId('apple', 'Elder'), 'date', ...byId('cherry', 'fig')]);
    assert.deepEqual(await all({ sorts: [{ field: 'score', direction: 'desc' }] }, 3), ['date', ...byId('apple', 'Elder'), 'grape 100%', 'Banana', ...byId('cherry', 'fig')]);
    const either = await all({ filter: { or: [{ field: 'done', op: 'eq', value: true }, { field: 'name', op: 'starts_with', value: 'B' }] } }, 10);
    assert.deepEqual(either, ['apple', 'Banana', 'date', 'fig']);
    // not (score > 2) keeps the records with no score
    assert.deepEqual(await all({ filter: { not: { field: 'score', op: 'gt', value: 2 } } }, 10), ['Banana', 'cherry', 'fig', 'grape 100%']);
  });

  it('matches text case-insensitively and lets negative ops match empty cells', async () => {
    assert.deepEqual(await all({ filter: { field: 'name', op: 'eq', value: 'BANANA' } }, 10), ['Banana']);
    assert.deepEqual(await all({ filter: { field: 'name', op: 'contains', value: '0%' } }, 10), ['grape 100%']);
    assert.deepEqual(await all({ filter: { field: 'stage', op: 'neq', value: 'Open' } }, 10), ['Banana', 'cherry', 'Elder', 'grape 100%']);
    assert.deepEqual(await all({ filter: { field: 'score', op: 'is_none_of', value: [3, 5] } }, 10), ['Banana', 'cherry', 'fig', 'grape 100%']);
    assert.deepEqual(await all({ filter: { field: 'score', op: 'lt', value: 3 } }, 10), ['Banana', 'grape 100%']);
    assert.deepEqual(await all({ filter: { field: 'owner', op: 'eq', value: 'me' } }, 10), ['apple', 'date']);
    assert.deepEqual(await all({ filter: { field: 'stage', op: 'is_empty' } }, 10), ['cherry', 'grape 100%']);
  });

  it('sorts text case-insensitively and breaks ties by id', async () => {
    assert.deepEqual(await all({ sorts: [{ field: 'name', direction: 'desc' }] }, 4), ['grape 100%', 'fig', 'Elder', 'date', 'cherry', 'Banana', 'apple']);
    const ties = await all({ sorts: [{ field: 'done' }, { field: 'stage' }] }, 1);
    assert.equal(ties.length, 7);
    assert.deepEqual(new Set(ties).size, 7);
  });

  it('returns only the fields asked for and counts only when asked', async () => {
    const page = (await query({ fields: ['name'], limit: 2, count: 'exact' }).expect(200)).body;
    assert.deepEqual(Object.keys(page.data[0].values), ['name']);
    assert.equal(page.count, 7);
    assert.equal(page.count_exact, true);
    const plain = (await query({ limit: 2 }).expect(200)).body;
    assert.equal('count' in plain, false);
    const estimate = (await query({ filter: { field: 'done', op: 'eq', value: true }, count: 'estimate' }).expect(200)).body;
    assert.equal(estimate.count_exact, false);
    assert.equal(typeof estimate.count, 'number');
  });

  it('binds the cursor to its query', async () => {
    const first = (await query({ sorts: [{ field: 'score' }], limit: 2 }).expect(200)).body;
    const res = await query({ sorts: [{ field: 'name' }], limit: 2, cursor: first.next_cursor }).expect(422);
    assert.deepEqual(pointers(res), ['/cursor']);
    await query({ sorts: [{ field: 'score' }], limit: 2, cursor: 'bm9wZQ' }).expect(422);
  });

  it("binds the cursor to its database: another database's cursor is refused, in a query and in a list", async () => {
    const space = (await w.t.db('databases').where({ id: w.db }).first('space_id')).space_id;
    const other = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/databases`).set(w.admin.auth).send({ name: 'E', space_id: space }).expect(201)).body.id;
    const records = (path: string) => `/api/v1/workspaces/${w.ws}/databases/${other}/records${path}`;
    for (const name of ['one', 'two', 'three']) await w.t.request.post(records('')).set(w.editor.auth).send({ values: { name } }).expect(201);
    const queried = (await query({ limit: 2 }).expect(200)).body.next_cursor;
    const res = await w.t.request.post(records('/query')).set(w.member.auth).send({ limit: 2, cursor: queried }).expect(422);
    assert.deepEqual(pointers(res), ['/cursor']);
    const listed = (await w.t.request.get(w.url('?limit=2')).set(w.member.auth).expect(200)).body.next_cursor;
    assert.deepEqual(pointers(await w.t.request.get(records(`?limit=2&cursor=${listed}`)).set(w.member.auth).expect(422)), ['/query/cursor']);
    // In its own database the same cursor reads on.
    assert.equal((await query({ limit: 2, cursor: queried }).expect(200)).body.data.length, 2);
  });

  it('reports every mistake of a filter at its pointer', async () => {
    const res = await query({
      filter: { and: [{ field: 'nope', op: 'eq', value: 1 }, { field: 'score', op: 'contains', value: 'x' }, { field: 'stage', op: 'eq', value: 'Maybe' }, { field: 'score', op: 'gt' }, { or: 3 }] },
      sorts: [{ field: 'ghost' }],
      fields: ['name', 'missing'],
    }).expect(422);
    assert.deepEqual(pointers(res).sort(), ['/fields/1', '/filter/and/0/field', '/filter/and/1/op', '/filter/and/2/value', '/filter/and/3/value', '/filter/and/4/or', '/sorts/0/field'].sort());
    await query({ view_id: '00000000-0000-4000-8000-000000000000' }).expect(422);
  });

  it('applies a view by id and searches titles with q', async () => {
    const view = (await w.t.db('database_views').where({ database_id: w.db }).first('id')).id;
    await w.t.db('database_views').where({ id: view }).update({ config: { filter: { field: 'done', op: 'eq', value: true }, sorts: [{ field: 'name', direction: 'desc' }] } });
    assert.deepEqual(await all({ view_id: view }, 2), ['fig', 'date', 'apple']);
    const listed = (await w.t.request.get(w.url(`?view_id=${view}&q=a`)).set(w.member.auth).expect(200)).body;
    assert.deepEqual(names(listed), ['date', 'apple']);
    assert.deepEqual(await all({ q: 'AN' }, 10), ['Banana']);
    await w.t.request.post(w.url('/query')).set(w.outsider.auth).send({}).expect(404);
  });

  it('compares whole-number fields (rating, autonumber) with whole and fractional values alike', async () => {
    const fields = w.url().replace(/records$/, 'fields');
    await w.t.request.post(fields).set(w.admin.auth).send({ name: 'Stars', type: 'rating', options: { max: 5 } }).expect(201);
    await w.t.request.post(fields).set(w.admin.auth).send({ name: 'No', type: 'autonumber' }).expect(201);
    const stars: Record<string, number | null> = { apple: 4, Banana: 1, cherry: null, date: 5, Elder: 3, fig: 2, 'grape 100%': 4 };
    for (const [name, value] of Object.entries(stars)) await w.t.request.patch(w.url(`/${ids[name]}`)).set(w.editor.auth).send({ values: { stars: value } }).expect(200);
    assert.deepEqual(await all({ filter: { field: 'stars', op: 'gte', value: 4 } }, 10), ['apple', 'date', 'grape 100%']);
    assert.deepEqual(await all({ filter: { field: 'stars', op: 'gte', value: 3.5 } }, 10), ['apple', 'date', 'grape 100%']);
    assert.deepEqual(await all({ filter: { field: 'stars', op: 'lt', value: 1.5 } }, 10), ['Banana']);
    assert.deepEqual(await all({ filter: { field: 'stars', op: 'eq', value: 4.5 } }, 10), []);
    assert.deepEqual(await all({ filter: { field: 'stars', op: 'neq', value: 4 } }, 10), ['Banana', 'cherry', 'date', 'Elder', 'fig']);
    assert.deepEqual(await all({ filter: { field: 'stars', op: 'is_any_of', value: [1, 5] } }, 10), ['Banana', 'date']);
    assert.deepEqual(await all({ filter: { field: 'stars', op: 'is_none_of', value: [4, 2.5] } }, 10), ['Banana', 'cherry', 'date', 'Elder', 'fig']);
    const numbers = (await query({ fields: ['name', 'no'], limit: 10 }).expect(200)).body.data.map((r: { values: { no: number } }) => r.values.no);
    const second = Math.min(...numbers) + 1;
    assert.deepEqual(await all({ filter: { field: 'no', op: 'eq', value: second } }, 10), ['Banana']);
    assert.deepEqual(await all({ filter: { field: 'no', op: 'lte', value: second + 0.5 } }, 10), ['apple', 'Banana']);
    assert.deepEqual(await all({ filter: { field: 'no', op: 'gt', value: 2 ** 53 } }, 10), []);
  });

  it('pages the same straight down an index as through ids picked first, past a cursor on a nullable key', async () => {
    const desc = { sorts: [{ field: 'score', direction: 'desc' }] };
    const filtered = { ...desc, filter: { field: 'done', op: 'eq', value: false } };
    const before = [await all(desc, 3), await all(desc, 2), await all(filtered, 2)];
    const view = (await w.t.db('database_views').where({ database_id: w.db }).first('id')).id;
    await w.t.db('database_views').where({ id: view }).update({ config: { sorts: [{ field: 'score', direction: 'desc' }] } });
    await w.t.container.resolverFor('databases')('databases.viewIndexes').sync(w.db);
    // The sync tells every process's catalog through the cache signal, which comes a moment after it.
    const records = w.t.container.resolverFor('records')('records.service');
    for (let i = 0; !(await records.readTable(w.ws, w.db)).indexed(`"${w.column.score}"`, 'desc'); i++) {
      assert.ok(i < 100, 'the catalog never learned of the index');
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual([await all(desc, 3), await all(desc, 2), await all(filtered, 2)], before);
    assert.deepEqual(before[0].slice(0, 1), ['date']);
  });
});
