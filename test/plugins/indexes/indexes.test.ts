import assert from 'node:assert/strict';
import { createWorkspace, joinWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';

type FieldIndex = { field_id: string; api_name: string; mode: string; wanted_by: string[]; indexes: Array<{ name: string; direction: string; state: string }>; uses: number };

describe('indexes: adaptive indexes', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: SignedUpUser;
  let editor: SignedUpUser;
  let ws: string;
  let db: string;
  const api = (path: string) => `/api/v1/workspaces/${ws}/databases/${db}${path}`;
  const list = async (): Promise<FieldIndex[]> => (await t.request.get(api('/indexes')).set(admin.auth).expect(200)).body.data;
  const entry = async (apiName: string) => (await list()).find((f) => f.api_name === apiName);
  /** The index sync is a job: waits until `check` holds of the list. */
  async function until(check: (fields: FieldIndex[]) => boolean): Promise<FieldIndex[]> {
    for (let i = 0; i < 150; i++) {
      const fields = await list();
      if (check(fields)) return fields;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`never: ${JSON.stringify(await list())}`);
  }
  const query = (body: object) => t.request.post(api('/records/query')).set(editor.auth).send(body).expect(200);
  /** The directions of a field's indexes that are ready, ascending first. */
  const ready = (fields: FieldIndex[], apiName: string) => (fields.find((x) => x.api_name === apiName)?.indexes ?? []).filter((i) => i.state === 'ready').map((i) => i.direction);
  const definitions = async () =>
    new Map<string, string>((await t.db.raw(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = (SELECT table_name FROM databases WHERE id = ?)`, [db])).rows.map((r: { indexname: string; indexdef: string }) => [r.indexname, r.indexdef]));

  before(async () => {
    // Every query counts as slow here: what is learned, not how slow this small table is, is under test.
    t = await startTestKernel({ config: { plugins: { indexes: { options: { slowMs: 0, learnAfter: 3, minRows: 0 } } } } });
    admin = await signUp(t);
    editor = await signUp(t);
    ws = (await createWorkspace(t, admin)).id;
    await joinWorkspace(t, admin, ws, editor, 'editor');
    const space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(admin.auth).send({ name: 'S' }).expect(201)).body.id;
    db = (await t.request.post(`/api/v1/workspaces/${ws}/databases`).set(admin.auth).send({ name: 'D', space_id: space }).expect(201)).body.id;
    for (const body of [
      { name: 'Score', type: 'number' },
      { name: 'Due', type: 'date' },
      { name: 'Label', type: 'text' },
      { name: 'Rank', type: 'number' },
    ]) {
      await t.request.post(api('/fields')).set(admin.auth).send(body).expect(201);
    }
  });
  after(() => t.stop());

  it('indexes the fields that queries filter and sort on once they have been asked for enough, and says why', async () => {
    for (let i = 0; i < 2; i++) await query({ filter: { field: 'score', op: 'gte', value: i }, sorts: [{ field: 'due', direction: 'desc' }] });
    assert.equal(await entry('score'), undefined, 'two queries teach nothing yet');
    await query({ filter: { field: 'score', op: 'gte', value: 3 }, sorts: [{ field: 'due', direction: 'desc' }] });
    const fields = await until((f) => ready(f, 'score').length > 0 && ready(f, 'due').length > 0);
    for (const name of ['score', 'due']) {
      const f = fields.find((x) => x.api_name === name)!;
      assert.deepEqual([f.mode, f.wanted_by, f.uses], ['auto', ['queries'], 3]);
    }
    const indexes = await definitions();
    for (const f of fields) for (const index of f.indexes) assert.ok(indexes.has(index.name));
    // The queries that taught `due` sorted it descending: records sort `due DESC NULLS LAST, id ASC`, so its index is built that way.
    const [due] = fields.find((x) => x.api_name === 'due')!.indexes;
    const [score] = fields.find((x) => x.api_name === 'score')!.indexes;
    assert.deepEqual([ready(fields, 'due'), ready(fields, 'score')], [['desc'], ['asc']]);
    assert.match(indexes.get(due.name)!, /\(f_[0-9a-f]+ DESC NULLS LAST, id\)/);
    assert.match(indexes.get(score.name)!, /\(f_[0-9a-f]+, id\)/);
  });

  it('learns each direction of a sort on its own: a field sorted both ways gets an index each way; a filter is served by either', async () => {
    // `due` has its descending index, which no ascending sort can use: slow ascending sorts teach that way too.
    for (let i = 0; i < 3; i++) await query({ sorts: [{ field: 'due', direction: 'asc' }] });
    const fields = await until((f) => ready(f, 'due').length === 2);
    assert.deepEqual(ready(fields, 'due'), ['asc', 'desc']);
    const indexes = await definitions();
    const [asc, desc] = fields.find((x) => x.api_name === 'due')!.indexes;
    assert.match(indexes.get(asc.name)!, /\(f_[0-9a-f]+, id\)/);
    assert.match(indexes.get(desc.name)!, /\(f_[0-9a-f]+ DESC NULLS LAST, id\)/);
    // `score` has its ascending index: descending filters on it are served already, and build nothing more.
    for (let i = 0; i < 4; i++) await query({ filter: { field: 'score', op: 'lt', value: i } });
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(ready(await list(), 'score'), ['asc']);
    assert.deepEqual(
      (await t.db('index_fields').where({ database_id: db }).whereIn('field_id', fields.filter((f) => ['due', 'score'].includes(f.api_name)).map((f) => f.field_id)).select('field_id', 'ascending', 'descending'))
        .map((r: { field_id: string; ascending: boolean; descending: boolean }) => [fields.find((f) => f.field_id === r.field_id)!.api_name, r.ascending, r.descending])
        .sort(),
      [
        ['due', true, true],
        ['score', true, false],
      ],
    );
  });

  it('lets a creator forbid an index (dropped, never rebuilt) and pin one nobody queries (built)', async () => {
    await t.request.put(api('/indexes/score')).set(admin.auth).send({ mode: 'forbid' }).expect(200);
    await t.request.put(api('/indexes/label')).set(admin.auth).send({ mode: 'pin' }).expect(200);
    const fields = await until((f) => ready(f, 'score').length === 0 && ready(f, 'label').length === 1);
    assert.deepEqual(fields.find((x) => x.api_name === 'score')!.wanted_by, []);
    assert.deepEqual(fields.find((x) => x.api_name === 'label')!.wanted_by, ['pin']);
    for (let i = 0; i < 4; i++) await query({ filter: { field: 'score', op: 'gt', value: i } });
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual((await entry('score'))!.indexes, [], 'forbidden stays forbidden whatever the queries');
    // Back to auto: what queries taught counts again.
    await t.request.put(api('/indexes/score')).set(admin.auth).send({ mode: 'auto' }).expect(200);
    await until((f) => ready(f, 'score').length === 1);
  });

  it('names what a view asks for, and drops what queries stopped using', async () => {
    await t.request.post(api('/views')).set(admin.auth).send({ name: 'By rank', type: 'grid', sorts: [{ field: 'rank', direction: 'asc' }] }).expect(201);
    const fields = await until((f) => ready(f, 'rank').length === 1);
    assert.deepEqual(fields.find((x) => x.api_name === 'rank')!.wanted_by, ['view']);
    // Nobody has sorted on `due` for longer than the plugin keeps an unused index.
    await t.db('index_fields').where({ database_id: db }).update({ last_used_at: new Date(Date.now() - 30 * 86_400_000) });
    const expired = await t.container.resolverFor('indexes')('indexes.policy').expire();
    assert.equal(expired, 1);
    const after = await until((f) => (f.find((x) => x.api_name === 'due')?.indexes ?? []).length === 0);
    assert.deepEqual(ready(after, 'label'), ['asc'], 'a pinned index stays');
    assert.deepEqual(ready(after, 'rank'), ['asc'], "a view's index stays");
    const due = (await t.db('index_fields').where({ database_id: db }).whereIn('field_id', after.filter((f) => f.api_name === 'due').map((f) => f.field_id)).first('ascending', 'descending', 'learned_at'))!;
    assert.deepEqual(due, { ascending: false, descending: false, learned_at: null }, 'a forgotten field forgets both directions');
  });

  it('is for creators, and answers 404 for a field it does not know', async () => {
    await t.request.get(api('/indexes')).set(editor.auth).expect(403);
    await t.request.put(api('/indexes/score')).set(editor.auth).send({ mode: 'pin' }).expect(403);
    await t.request.put(api('/indexes/nothing')).set(admin.auth).send({ mode: 'pin' }).expect(404);
    const bad = await t.request.put(api('/indexes/score')).set(admin.auth).send({ mode: 'always' }).expect(422);
    assert.equal(bad.body.errors[0].pointer, '/mode');
  });
});

describe('indexes: small tables', () => {
  let t: TestKernel;
  after(() => t?.stop());

  it('learns nothing on a table smaller than minRows, however slow or frequent its queries', async () => {
    t = await startTestKernel({ config: { plugins: { indexes: { options: { slowMs: 0, learnAfter: 1 } } } } });
    const admin = await signUp(t);
    const ws = (await createWorkspace(t, admin)).id;
    const space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(admin.auth).send({ name: 'S' }).expect(201)).body.id;
    const db = (await t.request.post(`/api/v1/workspaces/${ws}/databases`).set(admin.auth).send({ name: 'D', space_id: space }).expect(201)).body.id;
    await t.request.post(`/api/v1/workspaces/${ws}/databases/${db}/fields`).set(admin.auth).send({ name: 'Score', type: 'number' }).expect(201);
    for (let i = 0; i < 5; i++) {
      await t.request.post(`/api/v1/workspaces/${ws}/databases/${db}/records/query`).set(admin.auth).send({ sorts: [{ field: 'score', direction: 'asc' }] }).expect(200);
    }
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(await t.db('index_fields').where({ database_id: db }), []);
    assert.deepEqual((await t.request.get(`/api/v1/workspaces/${ws}/databases/${db}/indexes`).set(admin.auth).expect(200)).body.data, []);
  });
});

describe('indexes: statistics after a large load', () => {
  let t: TestKernel;
  after(() => t?.stop());

  it('analyses a table that was never analysed, or changed a lot since, once a slow query reads it', async () => {
    t = await startTestKernel({ config: { plugins: { indexes: { options: { slowMs: 0 } } } } });
    const admin = await signUp(t);
    const ws = (await createWorkspace(t, admin)).id;
    const space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(admin.auth).send({ name: 'S' }).expect(201)).body.id;
    const db = (await t.request.post(`/api/v1/workspaces/${ws}/databases`).set(admin.auth).send({ name: 'D', space_id: space }).expect(201)).body.id;
    const table = (await t.db('databases').where({ id: db }).first('table_name')).table_name as string;
    // Autovacuum would analyse it too, some time later: kept off this table, what is seen is this plugin's doing.
    await t.db.raw('ALTER TABLE ?? SET (autovacuum_enabled = false)', [table]);
    const records = `/api/v1/workspaces/${ws}/databases/${db}/records`;
    for (let b = 0; b < 12; b++) {
      await t.request.post(records).set(admin.auth).send({ records: Array.from({ length: 100 }, (_, i) => ({ values: { name: `R ${b * 100 + i}` } })) }).expect(201);
    }
    // Column statistics exist once the table has been analysed (the statistics collector may lag; pg_stats does not).
    const analysed = async () => {
      const { rows } = await t.db.raw('SELECT EXISTS (SELECT 1 FROM pg_stats WHERE schemaname = current_schema() AND tablename = ?) AS yes', [table]);
      return rows[0].yes ? true : null;
    };
    assert.equal(await analysed(), null, 'never analysed before');
    await t.request.get(`${records}?q=R%201&limit=10`).set(admin.auth).expect(200);
    let at = null;
    for (let i = 0; i < 50 && !at; i++) {
      at = await analysed();
      if (!at) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(at, 'the table was analysed after the slow search');
    // Right after, nothing changed: a second look does not analyse again.
    assert.equal(await t.container.resolverFor('indexes')('indexes.statistics').freshen(db), false);
  });
});
