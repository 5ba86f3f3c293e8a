import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, createWorkspace, signUp, type SignedUpUser } from '../../../core/testing.ts';

describe('select options and field conversion', () => {
  let t: TestKernel;
  let admin: SignedUpUser;
  let ws: string;
  let db: string;
  let table: string;

  const fields = (path = '') => `/api/v1/workspaces/${ws}/databases/${db}/fields${path}`;
  const columnOf = async (apiName: string) => (await t.db('fields').where({ database_id: db, api_name: apiName }).first('column_name')).column_name as string;
  const dataType = async (column: string) =>
    (await t.db('information_schema.columns').where({ table_schema: t.db.raw('current_schema()'), table_name: table, column_name: column }).first('data_type')).data_type;

  before(async () => {
    t = await startTestKernel();
    admin = await signUp(t);
    ws = (await createWorkspace(t, admin)).id;
    const space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(admin.auth).send({ name: 'S' }).expect(201)).body.id;
    db = (await t.request.post(`/api/v1/workspaces/${ws}/databases`).set(admin.auth).send({ name: 'D', space_id: space }).expect(201)).body.id;
    table = (await t.db('databases').where({ id: db }).first('table_name')).table_name;
  });
  after(() => t.stop());

  describe('options', () => {
    let open: string;
    let done: string;

    before(async () => {
      const stage = await t.request.post(fields()).set(admin.auth).send({ name: 'Stage', type: 'single_select', options: { choices: [{ label: 'Open' }, { label: 'Done' }] } }).expect(201);
      [open, done] = stage.body.options.choices.map((c: { id: string }) => c.id);
    });

    it('adds, relabels and recolours choices, keeping their ids', async () => {
      const added = await t.request.post(fields('/stage/options')).set(admin.auth).send({ label: ' Blocked ', color: 'red' }).expect(201);
      assert.deepEqual({ label: added.body.label, color: added.body.color }, { label: 'Blocked', color: 'red' });
      const renamed = await t.request.patch(fields(`/stage/options/${open}`)).set(admin.auth).send({ label: 'To do' }).expect(200);
      assert.equal(renamed.body.id, open);
      const choices = (await t.request.get(fields('/stage')).set(admin.auth)).body.options.choices;
      assert.deepEqual(choices.map((c: { id: string; label: string }) => [c.id, c.label]), [[open, 'To do'], [done, 'Done'], [added.body.id, 'Blocked']]);
    });

    it('refuses a duplicate label (422 /label) and answers 404 for a non-select field or unknown option', async () => {
      const res = await t.request.post(fields('/stage/options')).set(admin.auth).send({ label: 'done' }).expect(422);
      assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/label']);
      await t.request.post(fields('/name/options')).set(admin.auth).send({ label: 'X' }).expect(404);
      await t.request.patch(fields(`/stage/options/${db}`)).set(admin.auth).send({ label: 'X' }).expect(404);
    });

    it('deletes a used option only when confirmed, clearing it from the records', async () => {
      const col = await columnOf('stage');
      await t.db(table).insert([{ position: 'a', [col]: done }, { position: 'b', [col]: done }, { position: 'c', [col]: open }]);
      const refused = await t.request.delete(fields(`/stage/options/${done}`)).set(admin.auth).expect(409);
      assert.equal(refused.body.usage_count, 2);
      assert.equal(refused.body.code, 'option_in_use');
      assert.equal((await t.db(table).where(col, done)).length, 2, 'nothing changed');
      await t.request.delete(fields(`/stage/options/${done}`)).query({ confirm: true }).set(admin.auth).expect(204);
      assert.equal((await t.db(table).where(col, done)).length, 0);
      assert.equal((await t.db(table).where(col, open)).length, 1);
      const choices = (await t.request.get(fields('/stage')).set(admin.auth)).body.options.choices.map((c: { id: string }) => c.id);
      assert.ok(!choices.includes(done));
    });
  });

  describe('convert', () => {
    it('reports what a conversion would keep and lose without changing anything, then does exactly that', async () => {
      await t.request.post(fields()).set(admin.auth).send({ name: 'Amount', type: 'text' }).expect(201);
      const col = await columnOf('amount');
      await t.db(table).insert([
        { position: 'x1', [col]: '12' },
        { position: 'x2', [col]: 'twelve' },
        { position: 'x3', [col]: '3.5' },
        { position: 'x4', [col]: null },
      ]);
      const dry = await t.request.post(fields('/amount/convert')).set(admin.auth).send({ type: 'number', options: { precision: 2 }, dry_run: true }).expect(200);
      assert.equal(dry.body.converted, 2);
      assert.equal(dry.body.lost, 1);
      assert.deepEqual(dry.body.samples[0].before, 'twelve');
      assert.equal(dry.body.samples[0].after, null);
      assert.equal(await dataType(col), 'text', 'a dry run changes nothing');
      assert.equal((await t.request.get(fields('/amount')).set(admin.auth)).body.type, 'text');

      const real = await t.request.post(fields('/amount/convert')).set(admin.auth).send({ type: 'number', options: { precision: 2 } }).expect(200);
      assert.deepEqual({ converted: real.body.converted, lost: real.body.lost }, { converted: 2, lost: 1 });
      assert.equal(await dataType(col), 'numeric');
      assert.equal((await t.request.get(fields('/amount')).set(admin.auth)).body.type, 'number');
      const values = await t.db(table).whereIn('position', ['x1', 'x2', 'x3', 'x4']).orderBy('position').pluck(col);
      assert.deepEqual(values.map((v: unknown) => (v === null ? null : Number(v))), [12, null, 3.5, null]);
    });

    it('makes a select from text with one choice per distinct value, and back', async () => {
      await t.request.post(fields()).set(admin.auth).send({ name: 'Team', type: 'text' }).expect(201);
      const col = await columnOf('team');
      await t.db(table).insert([{ position: 't1', [col]: 'Red' }, { position: 't2', [col]: 'Blue' }, { position: 't3', [col]: 'Red' }]);
      const res = await t.request.post(fields('/team/convert')).set(admin.auth).send({ type: 'single_select' }).expect(200);
      assert.deepEqual({ converted: res.body.converted, lost: res.body.lost }, { converted: 3, lost: 0 });
      const field = (await t.request.get(fields('/team')).set(admin.auth)).body;
      assert.deepEqual(field.options.choices.map((c: { label: string }) => c.label).sort(), ['Blue', 'Red']);
      await t.request.post(fields('/team/convert')).set(admin.auth).send({ type: 'text' }).expect(200);
      assert.deepEqual(await t.db(table).whereIn('position', ['t1', 't2', 't3']).orderBy('position').pluck(col), ['Red', 'Blue', 'Red']);
    });

    it('refuses a conversion outside the matrix, and a title that cannot be one (422 /type)', async () => {
      await t.request.post(fields()).set(admin.auth).send({ name: 'Count', type: 'number' }).expect(201);
      const res = await t.request.post(fields('/count/convert')).set(admin.auth).send({ type: 'user' }).expect(422);
      assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/type']);
      await t.request.post(fields('/created_at/convert')).set(admin.auth).send({ type: 'text' }).expect(422);
      await t.request.post(fields('/name/convert')).set(admin.auth).send({ type: 'json' }).expect(422);
    });

    it('refuses options that stored values no longer fit, and rounds them only through a conversion that says so first', async () => {
      // A database of its own: the tests above write positions no record route would.
      const space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(admin.auth).send({ name: 'Prices' }).expect(201)).body.id;
      db = (await t.request.post(`/api/v1/workspaces/${ws}/databases`).set(admin.auth).send({ name: 'Prices', space_id: space }).expect(201)).body.id;
      table = (await t.db('databases').where({ id: db }).first('table_name')).table_name;
      const records = `/api/v1/workspaces/${ws}/databases/${db}/records`;
      await t.request.post(fields()).set(admin.auth).send({ name: 'Price', type: 'number', options: { precision: 2 } }).expect(201);
      await t.request.post(fields()).set(admin.auth).send({ name: 'Stars', type: 'rating', options: { max: 5 } }).expect(201);
      const ids: string[] = [];
      for (const values of [{ price: 1.25, stars: 5 }, { price: -41.5, stars: 2 }, { price: 3 }]) ids.push((await t.request.post(records).set(admin.auth).send({ values }).expect(201)).body.id);
      const stored = async () => (await t.db(table).whereIn('id', ids).orderBy('number').select(await columnOf('price'))).map((r) => Number(Object.values(r)[0]));

      // Lowering the precision below what values hold, forbidding negatives held, fewer stars than given: refused, nothing changes.
      for (const [ref, options] of [['price', { precision: 0 }], ['price', { allow_negative: false }], ['stars', { max: 4 }]] as const) {
        const res = await t.request.patch(fields(`/${ref}`)).set(admin.auth).send({ options }).expect(422);
        assert.equal(res.body.errors[0].pointer, '/options');
        assert.match(res.body.errors[0].detail, /^[12] records hold values these options do not allow.*convert/);
      }
      assert.deepEqual(await stored(), [1.25, -41.5, 3]);
      assert.equal((await t.request.get(fields('/price')).set(admin.auth).expect(200)).body.options.precision, 2);
      // What every value still fits is a plain change.
      await t.request.patch(fields('/price')).set(admin.auth).send({ options: { precision: 3 } }).expect(200);
      await t.request.patch(fields('/stars')).set(admin.auth).send({ options: { max: 6, icon: 'heart' } }).expect(200);

      // The conversion to the same type says what it would round, then does exactly that.
      const dry = (await t.request.post(fields('/price/convert')).set(admin.auth).send({ type: 'number', options: { precision: 0 }, dry_run: true }).expect(200)).body;
      assert.deepEqual([dry.converted, dry.lost, dry.changed], [3, 0, 2]);
      assert.deepEqual(dry.samples.slice(0, 2).map((x: { before: number; after: number }) => [x.before, x.after]), [[1.25, 1], [-41.5, -42]]);
      assert.deepEqual(await stored(), [1.25, -41.5, 3]);
      await t.request.post(fields('/price/convert')).set(admin.auth).send({ type: 'number', options: { precision: 0 } }).expect(200);
      assert.deepEqual(await stored(), [1, -42, 3]);
      assert.equal((await t.request.get(fields('/price')).set(admin.auth).expect(200)).body.options.precision, 0);
    });
  });
});
