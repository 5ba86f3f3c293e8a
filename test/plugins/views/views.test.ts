import assert from 'node:assert/strict';
import { pointers, recordsWorld, type RecordsWorld } from '../records/setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

type View = { id: string; name: string; type: string; is_default: boolean; filter: any; sorts: any[]; hidden_fields: string[]; field_order: string[]; group_by: string | null; options: any; published: boolean };

describe('views: saved views of a database', () => {
  let w: RecordsWorld;
  const V = (path = '') => `/api/v1/workspaces/${w.ws}/databases/${w.db}/views${path}`;
  const list = async (): Promise<View[]> => (await w.t.request.get(V()).set(w.member.auth).expect(200)).body.data;
  const create = (body: object) => w.t.request.post(V()).set(w.admin.auth).send(body);
  const names = (page: { data: Array<{ values: Record<string, any> }> }) => page.data.map((r) => r.values.name);

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await recordsWorld(undefined, kernel());
  });

  it('starts with the default grid view and keeps exactly one default', async () => {
    const [grid] = await list();
    assert.equal(grid.type, 'grid');
    assert.equal(grid.is_default, true);
    assert.deepEqual([grid.filter, grid.sorts, grid.hidden_fields, grid.group_by], [null, [], [], null]);

    const kanban: View = (await create({ name: 'Board', type: 'kanban', group_by: 'stage', is_default: true }).expect(201)).body;
    assert.equal(kanban.is_default, true);
    const after = await list();
    assert.deepEqual(after.map((v) => [v.name, v.is_default]), [['Grid view', false], ['Board', true]]);

    const refused = await w.t.request.patch(V(`/${kanban.id}`)).set(w.admin.auth).send({ is_default: false }).expect(422);
    assert.deepEqual(pointers(refused), ['/is_default']);
    await w.t.request.patch(V(`/${grid.id}`)).set(w.admin.auth).send({ is_default: true }).expect(200);
    assert.deepEqual((await list()).filter((v) => v.is_default).map((v) => v.id), [grid.id]);

    // deleting the default hands it to the first remaining view; the last view stays
    await w.t.request.delete(V(`/${grid.id}`)).set(w.admin.auth).expect(204);
    assert.deepEqual((await list()).map((v) => [v.id, v.is_default]), [[kanban.id, true]]);
    const last = await w.t.request.delete(V(`/${kanban.id}`)).set(w.admin.auth).expect(409);
    assert.equal(last.body.code, 'last_view');
    assert.equal((await list()).length, 1);
  });

  it('checks every setting against the fields and reports each at its pointer', async () => {
    const res = await create({
      name: 'Bad',
      type: 'grid',
      filter: { and: [{ field: 'ghost', op: 'eq', value: 1 }, { field: 'score', op: 'contains', value: 'x' }] },
      sorts: [{ field: 'nowhere' }],
      hidden_fields: ['name'],
      field_order: ['score', 'missing'],
      options: { date_field: 'score', title: 'x' },
    }).expect(422);
    assert.deepEqual(
      pointers(res).sort(),
      ['/filter/and/0/field', '/filter/and/1/op', '/sorts/0/field', '/hidden_fields/0', '/field_order/1', '/options/date_field', '/options/title'].sort(),
    );
    assert.deepEqual(pointers(await create({ name: 'K', type: 'kanban' }).expect(422)), ['/group_by']);
    assert.deepEqual(pointers(await create({ name: 'K', type: 'kanban', group_by: 'score' }).expect(422)), ['/group_by']);
    assert.deepEqual(pointers(await create({ name: 'C', type: 'calendar', options: { date_field: 'stage' } }).expect(422)), ['/options/date_field']);
    await create({ name: 'X', type: 'table' }).expect(422);
    await create({ name: 'X', type: 'grid', id: '00000000-0000-4000-8000-000000000000' }).expect(422);
    assert.equal((await list()).length, 1);
    // without date_field, a calendar stands on the first date field: here the creation time
    const created = (await w.t.db('fields').where({ database_id: w.db, type: 'created_at' }).first('api_name')).api_name;
    assert.equal((await create({ name: 'C', type: 'calendar' }).expect(201)).body.options.date_field, created);
  });

  it('names fields by api_name but keeps them by id: renaming an api_name keeps the view', async () => {
    const view: View = (await create({ name: 'Mine', type: 'grid', filter: { field: 'score', op: 'gte', value: 2 }, sorts: [{ field: 'score', direction: 'desc' }], hidden_fields: ['done'], field_order: ['stage', 'score'] }).expect(201)).body;
    const score = (await w.t.db('fields').where({ database_id: w.db, api_name: 'score' }).first('id')).id;
    assert.deepEqual((await w.t.db('database_views').where({ id: view.id }).first('config')).config.sorts, [{ field: score, direction: 'desc' }]);
    await w.t.request.patch(`/api/v1/workspaces/${w.ws}/databases/${w.db}/fields/score`).set(w.admin.auth).send({ api_name: 'points' }).expect(200);
    const got: View = (await w.t.request.get(V(`/${view.id}`)).set(w.member.auth).expect(200)).body;
    assert.deepEqual(got.filter, { field: 'points', op: 'gte', value: 2 });
    assert.deepEqual(got.sorts, [{ field: 'points', direction: 'desc' }]);
    assert.deepEqual(got.field_order, ['stage', 'points']);
    assert.deepEqual(got.hidden_fields, ['done']);
  });

  it('lets creators design views and everyone who reads the database see them', async () => {
    await w.t.request.post(V()).set(w.editor.auth).send({ name: 'E', type: 'grid' }).expect(403);
    await w.t.request.post(V()).set(w.member.auth).send({ name: 'M', type: 'grid' }).expect(403);
    await w.t.request.get(V()).set(w.outsider.auth).expect(404);
    const [grid] = await list();
    await w.t.request.patch(V(`/${grid.id}`)).set(w.editor.auth).send({ name: 'Mine' }).expect(403);
    await w.t.request.get(V('/00000000-0000-4000-8000-000000000000')).set(w.member.auth).expect(404);
  });

  describe('querying through a view', () => {
    const rows: Array<[string, number | null, boolean, string | null]> = [
      ['apple', 3, true, 'Open'],
      ['Banana', 1, false, 'Closed'],
      ['cherry', null, false, null],
      ['date', 5, true, 'Open'],
      ['Elder', 4, false, 'Closed'],
    ];
    const query = (who: RecordsWorld['member'], body: object) => w.t.request.post(w.url('/query')).set(who.auth).send(body);
    let view: View;

    beforeEach(async () => {
      for (const [name, score, done, stage] of rows) await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name, score, done, stage } }).expect(201);
      view = (await create({ name: 'Scored', type: 'grid', filter: { field: 'score', op: 'is_not_empty' }, sorts: [{ field: 'score', direction: 'desc' }] }).expect(201)).body;
    });

    it("applies the view's filter and sorts, and each user's override only for that user", async () => {
      assert.deepEqual(names((await query(w.member, { view_id: view.id }).expect(200)).body), ['date', 'Elder', 'apple', 'Banana']);
      const O = V(`/${view.id}/overrides`);
      assert.deepEqual((await w.t.request.get(O).set(w.member.auth).expect(200)).body, { view_id: view.id, filter: null, sorts: null, updated_at: null });
      const put = await w.t.request.put(O).set(w.member.auth).send({ filter: { field: 'stage', op: 'eq', value: 'Open' }, sorts: [{ field: 'name' }] }).expect(200);
      assert.deepEqual(put.body.sorts, [{ field: 'name' }]);
      // the view's filter AND mine, my sorts instead of the view's
      assert.deepEqual(names((await query(w.member, { view_id: view.id }).expect(200)).body), ['apple', 'date']);
      const listed = (await w.t.request.get(w.url(`?view_id=${view.id}`)).set(w.member.auth).expect(200)).body;
      assert.deepEqual(names(listed), ['apple', 'date']);
      // not for anyone else, and the view itself is unchanged
      assert.deepEqual(names((await query(w.editor, { view_id: view.id }).expect(200)).body), ['date', 'Elder', 'apple', 'Banana']);
      assert.deepEqual((await w.t.request.get(V(`/${view.id}`)).set(w.member.auth).expect(200)).body.filter, { field: 'score', op: 'is_not_empty' });
      // request sorts win over both
      assert.deepEqual(names((await query(w.member, { view_id: view.id, sorts: [{ field: 'score' }] }).expect(200)).body), ['apple', 'date']);
      const bad = await w.t.request.put(O).set(w.member.auth).send({ filter: { field: 'ghost', op: 'eq', value: 1 } }).expect(422);
      assert.deepEqual(pointers(bad), ['/filter/field']);
      await w.t.request.delete(O).set(w.member.auth).expect(204);
      assert.deepEqual(names((await query(w.member, { view_id: view.id }).expect(200)).body), ['date', 'Elder', 'apple', 'Banana']);
      await w.t.request.put(O).set(w.outsider.auth).send({}).expect(404);
    });

    it('skips conditions on a deleted field until it is restored, and refuses cursors made before the view changed', async () => {
      const fields = `/api/v1/workspaces/${w.ws}/databases/${w.db}/fields`;
      await w.t.request.delete(`${fields}/score`).set(w.admin.auth).expect(200);
      assert.deepEqual(names((await query(w.member, { view_id: view.id }).expect(200)).body).sort(), ['apple', 'Banana', 'cherry', 'date', 'Elder'].sort());
      await w.t.request.post(`${fields}/score/restore`).set(w.admin.auth).expect(200);
      const first = (await query(w.member, { view_id: view.id, limit: 2 }).expect(200)).body;
      assert.deepEqual(names(first), ['date', 'Elder']);
      await w.t.request.patch(V(`/${view.id}`)).set(w.admin.auth).send({ filter: { field: 'done', op: 'eq', value: true } }).expect(200);
      const stale = await query(w.member, { view_id: view.id, limit: 2, cursor: first.next_cursor }).expect(422);
      assert.deepEqual(pointers(stale), ['/cursor']);
      assert.deepEqual(names((await query(w.member, { view_id: view.id }).expect(200)).body), ['date', 'apple']);
      await query(w.member, { view_id: '00000000-0000-4000-8000-000000000000' }).expect(422);
    });

    it('builds the index of a field the view sorts on, in the background', async () => {
      const score = (await w.t.db('fields').where({ database_id: w.db, api_name: 'score' }).first('id')).id as string;
      // Descending, as the view sorts: `_d`.
      const name = `${w.table}_v_${score.replace(/-/g, '').slice(0, 20)}_d`;
      const deadline = Date.now() + 15_000;
      let found = false;
      while (!found && Date.now() < deadline) {
        found = (await w.t.db.raw('SELECT 1 FROM pg_indexes WHERE indexname = ?', [name])).rows.length > 0;
        if (!found) await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(found, `index ${name} was not built`);
    });
  });

  it('publishes form views with a token stored hashed, replaced on republish, gone on unpublish', async () => {
    const form: View = (await create({ name: 'Intake', type: 'form', hidden_fields: ['owner'], options: { title: 'Tell us', required_fields: ['score'] } }).expect(201)).body;
    assert.equal(form.published, false);
    assert.deepEqual(pointers(await create({ name: 'F', type: 'form', hidden_fields: ['score'], options: { required_fields: ['score'] } }).expect(422)), ['/options/required_fields/0']);
    const first = (await w.t.request.post(V(`/${form.id}/publish`)).set(w.admin.auth).expect(201)).body;
    assert.match(first.token, /^[0-9A-Za-z]{32}$/);
    assert.ok(first.url.endsWith(`/api/v1/public/forms/${first.token}`));
    const stored = await w.t.db('view_publications').where({ view_id: form.id }).first('token_hash');
    assert.notEqual(stored.token_hash, first.token);
    assert.equal((await w.t.request.get(V(`/${form.id}`)).set(w.member.auth).expect(200)).body.published, true);
    const second = (await w.t.request.post(V(`/${form.id}/publish`)).set(w.admin.auth).expect(201)).body;
    assert.notEqual(second.token, first.token);
    assert.notEqual((await w.t.db('view_publications').where({ view_id: form.id }).first('token_hash')).token_hash, stored.token_hash);
    await w.t.request.delete(V(`/${form.id}/publish`)).set(w.admin.auth).expect(204);
    assert.equal(await w.t.db('view_publications').where({ view_id: form.id }).first(), undefined);
    const [grid] = await list();
    assert.deepEqual(pointers(await w.t.request.post(V(`/${grid.id}/publish`)).set(w.admin.auth).expect(422)), ['']);
    await w.t.request.post(V(`/${form.id}/publish`)).set(w.editor.auth).expect(403);
  });
});
