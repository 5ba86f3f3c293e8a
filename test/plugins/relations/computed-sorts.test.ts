import assert from 'node:assert/strict';
import { pointers, recordsWorld, type RecordsWorld } from '../records/setup.ts';

type Page = { data: Array<{ id: string; values: Record<string, any> }>; next_cursor: string | null };

describe('relations: sorting and filtering by links, lookups and rollups', () => {
  let w: RecordsWorld;
  let companies: string;
  const id: Record<string, string> = {};
  const api = (path: string) => `/api/v1/workspaces/${w.ws}${path}`;
  const records = (db: string, path = '') => api(`/databases/${db}/records${path}`);
  const query = (body: object) => w.t.request.post(records(companies, '/query')).set(w.member.auth).send(body);

  /** Every page of a query, following next_cursor: the company names in the order shown. */
  async function all(body: object, limit: number): Promise<string[]> {
    const out: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = (await query({ ...body, limit, ...(cursor ? { cursor } : {}) }).expect(200)).body;
      out.push(...page.data.map((r) => r.values.name));
      cursor = page.next_cursor;
    } while (cursor);
    return out;
  }
  /** The order of `sorts`, checked to be the same in one page and in pages of 1 and 2. */
  async function sorted(...sorts: object[]): Promise<string[]> {
    const whole = await all({ sorts }, 1000);
    assert.deepEqual(await all({ sorts }, 1), whole, 'pages of 1');
    assert.deepEqual(await all({ sorts }, 2), whole, 'pages of 2');
    return whole;
  }
  const matching = async (filter: object) => (await all({ filter }, 1000)).sort();
  /** Names of records that tie on every key, in id order (the final tie-break). */
  const byId = (...names: string[]) => [...names].sort((a, b) => (id[a] < id[b] ? -1 : 1));

  before(async () => {
    w = await recordsWorld();
    const space = (await w.t.db('spaces').where({ workspace_id: w.ws }).first('id')).id;
    companies = (await w.t.request.post(api('/databases')).set(w.admin.auth).send({ name: 'Companies', space_id: space }).expect(201)).body.id;
    await w.t.request.post(api('/relations')).set(w.admin.auth).send({ from_database_id: companies, to_database_id: w.db, kind: 'one_to_many', from_field_name: 'People', to_field_name: 'Company' }).expect(201);
    await w.t.request.post(api(`/databases/${w.db}/fields`)).set(w.admin.auth).send({ name: 'Due', type: 'date' }).expect(201);
    const field = (name: string, type: string, options: object) => w.t.request.post(api(`/databases/${companies}/fields`)).set(w.admin.auth).send({ name, type, options }).expect(201);
    const via = { link_field_id: 'people' };
    await field('Total', 'rollup', { ...via, target_field_id: 'score', function: 'sum' });
    await field('Average', 'rollup', { ...via, target_field_id: 'score', function: 'avg' });
    await field('Scored', 'rollup', { ...via, target_field_id: 'score', function: 'count' });
    await field('Best', 'rollup', { ...via, target_field_id: 'score', function: 'max' });
    await field('Latest due', 'rollup', { ...via, target_field_id: 'due', function: 'latest' });
    await field('Names', 'rollup', { ...via, target_field_id: 'name', function: 'concat' });
    await field('Score set', 'rollup', { ...via, target_field_id: 'score', function: 'unique' });
    await field('Stage set', 'rollup', { ...via, target_field_id: 'stage', function: 'unique' });
    await field('Scores', 'lookup', { ...via, target_field_id: 'score' });
    await field('Stages', 'lookup', { ...via, target_field_id: 'stage' });

    const people: Array<[string, number | null, string | null, string | null]> = [
      ['Bob', 5, 'Open', '2024-06-01'],
      ['ann', 3, 'Closed', '2024-05-01'],
      ['cid', 1, 'Open', '2024-01-15'],
      ['Dan', null, null, null],
      ['eve', 5, 'Closed', '2024-03-01'],
      ['Fay', 5, 'Open', null],
    ];
    for (const [name, score, stage, due] of people) {
      id[name] = (await w.t.request.post(records(w.db)).set(w.editor.auth).send({ values: { name, score, stage, due } }).expect(201)).body.id;
    }
    const company = async (name: string, linked: string[]) =>
      (id[name] = (await w.t.request.post(records(companies)).set(w.editor.auth).send({ values: { name, people: linked.map((p) => id[p]) } }).expect(201)).body.id);
    // Acme links Bob, then (a later link) ann: its cells show Bob's values first.
    await company('Acme', ['Bob']);
    await w.t.request.post(records(companies, `/${id.Acme}/links/people`)).set(w.editor.auth).send({ record_ids: [id.ann] }).expect(200);
    await company('Globex', ['cid']);
    // Linked together: the older record (Dan) first.
    await company('Initech', ['Dan', 'eve']);
    await company('Hooli', []);
    await company('Umbrella', ['Fay']);
    await company('Vandelay', []);
  });
  after(() => w.t.stop());

  it('shows the values the orders below rely on', async () => {
    const rows = (await query({ limit: 1000 }).expect(200)).body.data as Page['data'];
    const show = Object.fromEntries(rows.map((r) => [r.values.name, [r.values.total, r.values.average, r.values.best, r.values.names, r.values.scores, r.values.score_set]]));
    assert.deepEqual(show, {
      Acme: [8, 4, 5, 'Bob, ann', [5, 3], [3, 5]],
      Globex: [1, 1, 1, 'cid', [1], [1]],
      Initech: [5, 5, 5, 'Dan, eve', [5], [5]],
      Hooli: [null, null, null, null, [], []],
      Umbrella: [5, 5, 5, 'Fay', [5], [5]],
      Vandelay: [null, null, null, null, [], []],
    });
  });

  it('sorts by a rollup\'s value, empty ones last in both directions, ties by id, through every page', async () => {
    assert.deepEqual(await sorted({ field: 'total' }), ['Globex', ...byId('Initech', 'Umbrella'), 'Acme', ...byId('Hooli', 'Vandelay')]);
    assert.deepEqual(await sorted({ field: 'total', direction: 'desc' }), ['Acme', ...byId('Initech', 'Umbrella'), 'Globex', ...byId('Hooli', 'Vandelay')]);
    assert.deepEqual(await sorted({ field: 'average' }, { field: 'best', direction: 'desc' }), ['Globex', 'Acme', ...byId('Initech', 'Umbrella'), ...byId('Hooli', 'Vandelay')]);
    // a count of values is never empty: 0 for no link
    assert.deepEqual(await sorted({ field: 'scored', direction: 'desc' }), ['Acme', ...byId('Globex', 'Initech', 'Umbrella'), ...byId('Hooli', 'Vandelay')]);
    // dates as dates
    assert.deepEqual(await sorted({ field: 'latest_due', direction: 'desc' }), ['Acme', 'Initech', 'Globex', ...byId('Hooli', 'Umbrella', 'Vandelay')]);
    // concat as text fields sort: case-insensitively ("Bob, ann" < "cid" < "Dan, eve" < "Fay")
    assert.deepEqual(await sorted({ field: 'names' }), ['Acme', 'Globex', 'Initech', 'Umbrella', ...byId('Hooli', 'Vandelay')]);
    // unique by its first value as the cell shows it (Acme [3, 5]: 3)
    assert.deepEqual(await sorted({ field: 'score_set' }), ['Globex', 'Acme', ...byId('Initech', 'Umbrella'), ...byId('Hooli', 'Vandelay')]);
  });

  it('sorts a lookup by its first value with the read field\'s key, and a link by its first title', async () => {
    // Acme's first value is Bob's 5 (the older link), not its least
    assert.deepEqual(await sorted({ field: 'scores' }), ['Globex', ...byId('Acme', 'Initech', 'Umbrella'), ...byId('Hooli', 'Vandelay')]);
    assert.deepEqual(await sorted({ field: 'scores', direction: 'desc' }, { field: 'name', direction: 'desc' }), ['Umbrella', 'Initech', 'Acme', 'Globex', 'Vandelay', 'Hooli']);
    // a single select in the order of its options (Open before Closed), not by label
    assert.deepEqual(await sorted({ field: 'stages' }), [...byId('Acme', 'Globex', 'Umbrella'), 'Initech', ...byId('Hooli', 'Vandelay')]);
    assert.deepEqual(await sorted({ field: 'stages', direction: 'desc' }), ['Initech', ...byId('Acme', 'Globex', 'Umbrella'), ...byId('Hooli', 'Vandelay')]);
    // titles case-insensitively: Bob, cid, Dan (the older of the two linked together), Fay
    assert.deepEqual(await sorted({ field: 'people' }), ['Acme', 'Globex', 'Initech', 'Umbrella', ...byId('Hooli', 'Vandelay')]);
    assert.deepEqual(await sorted({ field: 'people', direction: 'desc' }), ['Umbrella', 'Initech', 'Globex', 'Acme', ...byId('Hooli', 'Vandelay')]);
    // from the other side: each person's company
    const people = (await w.t.request.post(records(w.db, '/query')).set(w.member.auth).send({ sorts: [{ field: 'company', direction: 'desc' }, { field: 'name' }] }).expect(200)).body;
    assert.deepEqual(people.data.map((r: any) => r.values.name), ['Fay', 'Dan', 'eve', 'cid', 'ann', 'Bob']);
  });

  it('keeps a cursor\'s place when records change between pages', async () => {
    const first: Page = (await query({ sorts: [{ field: 'scores' }], limit: 2 }).expect(200)).body;
    assert.deepEqual(first.data.map((r) => r.values.name), ['Globex', byId('Acme', 'Initech', 'Umbrella')[0]]);
    const cursor = first.next_cursor!;
    // Globex now reads 9 (it would sort last): the next page still starts after the cursor's values
    await w.t.request.patch(records(w.db, `/${id.cid}`)).set(w.editor.auth).send({ values: { score: 9 } }).expect(200);
    try {
      const rest: string[] = [];
      let next: string | null = cursor;
      while (next) {
        const page: Page = (await query({ sorts: [{ field: 'scores' }], limit: 2, cursor: next }).expect(200)).body;
        rest.push(...page.data.map((r) => r.values.name));
        next = page.next_cursor;
      }
      assert.deepEqual(rest, [...byId('Acme', 'Initech', 'Umbrella').slice(1), 'Globex', ...byId('Hooli', 'Vandelay')]);
    } finally {
      await w.t.request.patch(records(w.db, `/${id.cid}`)).set(w.editor.auth).send({ values: { score: 1 } }).expect(200);
    }
  });

  it('filters a rollup with the ops that fit its value', async () => {
    // numbers: sum, avg, count
    assert.deepEqual(await matching({ field: 'total', op: 'gte', value: 5 }), ['Acme', 'Initech', 'Umbrella']);
    assert.deepEqual(await matching({ field: 'total', op: 'is_empty' }), ['Hooli', 'Vandelay']);
    assert.deepEqual(await matching({ field: 'total', op: 'neq', value: 5 }), ['Acme', 'Globex', 'Hooli', 'Vandelay']);
    assert.deepEqual(await matching({ field: 'average', op: 'is_any_of', value: [1, 4] }), ['Acme', 'Globex']);
    assert.deepEqual(await matching({ field: 'scored', op: 'eq', value: 1 }), ['Globex', 'Initech', 'Umbrella']);
    // max and latest: the ops of the field they read, on the aggregate
    assert.deepEqual(await matching({ field: 'best', op: 'lt', value: 5 }), ['Globex']);
    assert.deepEqual(await matching({ field: 'latest_due', op: 'after', value: '2024-02-01' }), ['Acme', 'Initech']);
    assert.deepEqual(await matching({ field: 'latest_due', op: 'within', value: { from: '2024-01-01', to: '2024-03-31' } }), ['Globex', 'Initech']);
    assert.deepEqual(await matching({ field: 'latest_due', op: 'before', value: { relative: 'today' } }), ['Acme', 'Globex', 'Initech']);
    // concat: text, case-insensitively
    assert.deepEqual(await matching({ field: 'names', op: 'contains', value: 'ANN' }), ['Acme']);
    assert.deepEqual(await matching({ field: 'names', op: 'starts_with', value: 'dan,' }), ['Initech']);
    assert.deepEqual(await matching({ field: 'names', op: 'not_contains', value: 'a' }), ['Globex', 'Hooli', 'Vandelay']);
    // unique: like a lookup, some value matches; a negative op: none does
    assert.deepEqual(await matching({ field: 'stage_set', op: 'eq', value: 'Closed' }), ['Acme', 'Initech']);
    assert.deepEqual(await matching({ field: 'stage_set', op: 'neq', value: 'Closed' }), ['Globex', 'Hooli', 'Umbrella', 'Vandelay']);
    assert.deepEqual(await matching({ field: 'score_set', op: 'lt', value: 4 }), ['Acme', 'Globex']);
    assert.deepEqual(await matching({ field: 'score_set', op: 'is_empty' }), ['Hooli', 'Vandelay']);
    // with sorts by computed fields, through pages
    const body = { filter: { field: 'total', op: 'is_not_empty' }, sorts: [{ field: 'stages' }, { field: 'total', direction: 'desc' }] };
    assert.deepEqual(await all(body, 1), ['Acme', 'Umbrella', 'Globex', 'Initech']);
  });

  it('answers 422 at the pointer for an op or a value that does not fit the rollup', async () => {
    const bad = await query({ filter: { and: [
      { field: 'total', op: 'contains', value: '1' },
      { field: 'best', op: 'before', value: '2024-01-01' },
      { field: 'names', op: 'gt', value: 'a' },
      { field: 'latest_due', op: 'gt', value: 3 },
      { field: 'total', op: 'gte', value: 'five' },
      { field: 'latest_due', op: 'after', value: 'soon' },
      { field: 'stage_set', op: 'eq', value: 'Nope' },
      { field: 'total.x', op: 'eq', value: 1 },
    ] } }).expect(422);
    assert.deepEqual(pointers(bad), ['/filter/and/0/op', '/filter/and/1/op', '/filter/and/2/op', '/filter/and/3/op', '/filter/and/4/value', '/filter/and/5/value', '/filter/and/6/value', '/filter/and/7/field']);
    assert.match(bad.body.errors[0].detail, /rollup field does not support "contains"; it supports eq, neq, gt/);
  });

  it('sorts records by what their one linked record holds (the many side of a one-to-many), in every page, a trashed one counting as empty', async () => {
    await w.t.request.post(api(`/databases/${companies}/fields`)).set(w.admin.auth).send({ name: 'Rank', type: 'number' }).expect(201);
    for (const [name, rank] of [['Acme', 3], ['Globex', 1], ['Initech', 2]] as const) {
      await w.t.request.patch(records(companies, `/${id[name]}`)).set(w.editor.auth).send({ values: { rank } }).expect(200);
    }
    const peopleFields = api(`/databases/${w.db}/fields`);
    await w.t.request.post(peopleFields).set(w.admin.auth).send({ name: 'Company rank', type: 'lookup', options: { link_field_id: 'company', target_field_id: 'rank' } }).expect(201);
    await w.t.request.post(peopleFields).set(w.admin.auth).send({ name: 'Company best', type: 'rollup', options: { link_field_id: 'company', target_field_id: 'rank', function: 'max' } }).expect(201);
    id.Gus = (await w.t.request.post(records(w.db)).set(w.editor.auth).send({ values: { name: 'Gus' } }).expect(201)).body.id;
    const people = async (sorts: object[]) => {
      const pages: string[][] = [];
      for (const limit of [1000, 1, 2]) {
        const names: string[] = [];
        let cursor: string | null = null;
        do {
          const page: Page = (await w.t.request.post(records(w.db, '/query')).set(w.member.auth).send({ sorts, limit, ...(cursor ? { cursor } : {}) }).expect(200)).body;
          names.push(...page.data.map((r) => r.values.name));
          cursor = page.next_cursor;
        } while (cursor);
        pages.push(names);
      }
      assert.deepEqual(pages[1], pages[0], 'pages of 1');
      assert.deepEqual(pages[2], pages[0], 'pages of 2');
      return pages[0];
    };
    try {
      // Fay's company has no rank and Gus has no company: both empty, last in both directions
      const ascending = ['cid', ...byId('Dan', 'eve'), ...byId('Bob', 'ann'), ...byId('Fay', 'Gus')];
      assert.deepEqual(await people([{ field: 'company_rank' }]), ascending);
      assert.deepEqual(await people([{ field: 'company_best' }]), ascending);
      assert.deepEqual(await people([{ field: 'company_rank', direction: 'desc' }]), [...byId('Bob', 'ann'), ...byId('Dan', 'eve'), 'cid', ...byId('Fay', 'Gus')]);
      assert.deepEqual(await people([{ field: 'company' }, { field: 'name' }]), ['ann', 'Bob', 'cid', 'Dan', 'eve', 'Fay', 'Gus']);
      await w.t.request.post(records(companies, '/delete')).set(w.editor.auth).send({ ids: [id.Globex] }).expect(200);
      assert.deepEqual(await people([{ field: 'company_rank' }]), [...byId('Dan', 'eve'), ...byId('Bob', 'ann'), ...byId('cid', 'Fay', 'Gus')]);
      assert.deepEqual(await people([{ field: 'company' }, { field: 'name' }]), ['ann', 'Bob', 'Dan', 'eve', 'Fay', 'cid', 'Gus']);
    } finally {
      await w.t.request.post(records(companies, '/restore')).set(w.editor.auth).send({ ids: [id.Globex] }).expect(200);
      await w.t.request.post(records(w.db, '/delete')).set(w.editor.auth).send({ ids: [id.Gus] }).expect(200);
    }
  });

  it('gives lookups made before they stored their relation\'s kind that kind, by a migration, and they sort the same', async () => {
    const before = await w.t.request.post(records(w.db, '/query')).set(w.member.auth).send({ sorts: [{ field: 'company_rank' }] }).expect(200);
    await w.t.db('fields').whereIn('type', ['lookup', 'rollup', 'count']).update({ options: w.t.db.raw(`options - 'kind'`) });
    await w.t.db('knex_migrations_relations').where('name', 'like', '%_linked_kind').delete();
    await w.t.kernel.migrate();
    const kinds = (await w.t.db('fields').whereIn('type', ['lookup', 'rollup', 'count']).select(w.t.db.raw(`options->>'kind' AS kind`))).map((r: { kind: string }) => r.kind);
    assert.ok(kinds.length > 0 && kinds.every((k: string) => k === 'one_to_many'), `kinds: ${kinds}`);
    const after = await w.t.request.post(records(w.db, '/query')).set(w.member.auth).send({ sorts: [{ field: 'company_rank' }] }).expect(200);
    assert.deepEqual(after.body.data.map((r: { id: string }) => r.id), before.body.data.map((r: { id: string }) => r.id));
  });
});
