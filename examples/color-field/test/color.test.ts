import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { createWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from 'tessera/testing';

const PLUGIN_DIR = fileURLToPath(new URL('..', import.meta.url));

/** The field type loaded the way a self-hoster enables it, by `resolve`, beside the built-in plugins. */
describe('color field type (examples/color-field)', () => {
  let t: TestKernel;
  let admin: SignedUpUser;
  let base: string;
  const records = () => `${base}/records`;
  const count = async () => (await t.request.get(records()).set(admin.auth).expect(200)).body.data.length as number;

  before(async () => {
    t = await startTestKernel({ config: { plugins: { 'color-field': { resolve: PLUGIN_DIR } } } });
    admin = await signUp(t);
    const ws = (await createWorkspace(t, admin)).id;
    const space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(admin.auth).send({ name: 'Brand' }).expect(201)).body.id;
    const db = (await t.request.post(`/api/v1/workspaces/${ws}/databases`).set(admin.auth).send({ name: 'Palette', space_id: space }).expect(201)).body.id;
    base = `/api/v1/workspaces/${ws}/databases/${db}`;
    const field = await t.request.post(`${base}/fields`).set(admin.auth).send({ name: 'Swatch', type: 'color' }).expect(201);
    assert.equal(field.body.type, 'color');
  });
  after(() => t.stop());

  it('stores a colour in any case and reads it back in lowercase; "" empties the cell', async () => {
    const created = await t.request.post(records()).set(admin.auth).send({ values: { swatch: '#FF8800' } }).expect(201);
    assert.equal(created.body.values.swatch, '#ff8800');
    const read = await t.request.get(`${records()}/${created.body.id}`).set(admin.auth).expect(200);
    assert.equal(read.body.values.swatch, '#ff8800');
    const emptied = await t.request.patch(`${records()}/${created.body.id}`).set(admin.auth).send({ values: { swatch: '' } }).expect(200);
    assert.equal(emptied.body.values.swatch, null);
  });

  it('refuses what is not #rrggbb at the cell\'s pointer, storing nothing', async () => {
    const before = await count();
    for (const swatch of ['#f80', 'orange', '#ff880080', 'ff8800', 16746496, ['#ff8800']]) {
      const res = await t.request.post(records()).set(admin.auth).send({ values: { swatch } }).expect(422);
      assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/values/swatch'], JSON.stringify(swatch));
      assert.match(res.body.errors[0].detail, /#rrggbb/);
    }
    assert.equal(await count(), before);
  });

  it('filters by colour ignoring case, sorts, and refuses operators it does not offer', async () => {
    for (const swatch of ['#0000ff', '#00ff00', '#ff0000']) await t.request.post(records()).set(admin.auth).send({ values: { swatch } }).expect(201);
    const query = (body: object) => t.request.post(`${records()}/query`).set(admin.auth).send(body);
    const red = (await query({ filter: { field: 'swatch', op: 'eq', value: '#FF0000' } }).expect(200)).body.data;
    assert.deepEqual(red.map((r: { values: { swatch: string } }) => r.values.swatch), ['#ff0000']);
    const sorted = (await query({ filter: { field: 'swatch', op: 'is_not_empty' }, sorts: [{ field: 'swatch', direction: 'desc' }] }).expect(200)).body.data;
    assert.deepEqual(sorted.map((r: { values: { swatch: string } }) => r.values.swatch), ['#ff0000', '#00ff00', '#0000ff']);
    const refused = await query({ filter: { field: 'swatch', op: 'contains', value: 'ff' } }).expect(422);
    assert.equal(refused.body.code, 'validation_failed');
  });

  it('converts to text, keeping every value', async () => {
    await t.request.post(`${base}/fields/swatch/convert`).set(admin.auth).send({ type: 'text' }).expect(200);
    const all = (await t.request.get(records()).set(admin.auth).expect(200)).body.data.map((r: { values: { swatch: string | null } }) => r.values.swatch);
    assert.deepEqual(all.filter((v: string | null) => v !== null).sort(), ['#0000ff', '#00ff00', '#ff0000']);
  });
});
