import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { createWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../core/testing.ts';

/** The fields of the source database, each kind a CSV can carry, with the options the copy is created with. */
const FIELDS = [
  { name: 'Code', type: 'text' },
  { name: 'Notes', type: 'long_text' },
  { name: 'Amount', type: 'number', options: { precision: 3 } },
  { name: 'Price', type: 'currency', options: { precision: 2, symbol: '€', code: 'EUR' } },
  { name: 'Done', type: 'checkbox' },
  { name: 'Due', type: 'date' },
  { name: 'At', type: 'datetime' },
  { name: 'Stage', type: 'single_select', options: { choices: [{ label: 'Open' }, { label: 'Closed, for good' }] } },
  { name: 'Tags', type: 'multi_select', options: { choices: [{ label: 'red' }, { label: 'blue' }, { label: 'green' }] } },
  { name: 'Mail', type: 'email' },
  { name: 'Site', type: 'url' },
] as const;

const ROWS: Array<Record<string, unknown>> = [
  { name: 'Acme, "the" first', code: '007', notes: 'two\nlines, and "quotes"', amount: 12345678.125, price: 0.1, done: true, due: '2024-02-29', at: '2024-05-01T10:20:30.000Z', stage: 'Closed, for good', tags: ['red', 'green'], mail: 'a@acme.test', site: 'https://acme.test/a?b=c' },
  { name: '=1+2', code: '0042', notes: 'ünïcödé ✓', amount: -0.001, price: 99999.99, done: false, due: '1999-12-31', at: '2000-01-01T00:00:00.000Z', stage: 'Open', tags: [], mail: null, site: null },
  { name: 'Empty cells', code: null, notes: null, amount: null, price: null, done: false, due: null, at: null, stage: null, tags: ['blue'], mail: null, site: null },
];

/**
 * Data out and back in: a database exported as CSV and imported into an empty database (its fields created by the
 * mapping with the source's types and options) holds the same values — the second export is the first, byte for byte.
 */
describe('data flow: export → import into an empty database → the same values', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: SignedUpUser;
  let ws: string;
  let space: string;
  const api = (path: string) => `/api/v1/workspaces/${ws}${path}`;
  // The user's fields only: the system ones (created, modified) say when and by whom, which a copy cannot keep.
  const columns = ['name', 'code', 'notes', 'amount', 'price', 'done', 'due', 'at', 'stage', 'tags', 'mail', 'site'].join(',');
  // Raw: a program reading the file (here the import) wants `=1+2` as stored, not neutralised for a spreadsheet.
  const exportCsv = async (db: string) => (await t.request.get(api(`/databases/${db}/export.csv`)).query({ fields: columns, formulas: 'raw' }).set(admin.auth).buffer(true).expect(200)).text;

  before(async () => {
    t = await startTestKernel();
    admin = await signUp(t, { name: 'Ada' });
    ws = (await createWorkspace(t, admin)).id;
    space = (await t.request.post(api('/spaces')).set(admin.auth).send({ name: 'S' }).expect(201)).body.id;
  });
  after(() => t?.stop());

  async function database(name: string): Promise<string> {
    return (await t.request.post(api('/databases')).set(admin.auth).send({ name, space_id: space }).expect(201)).body.id;
  }

  it('keeps every value: leading zeros, exact decimals, quotes and new lines, dates, selects, empty cells', async () => {
    const source = await database('Source');
    for (const field of FIELDS) {
      const res = await t.request.post(api(`/databases/${source}/fields`)).set(admin.auth).send(field);
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    const choiceIds = async (db: string, api_name: string) => {
      const fields = (await t.request.get(api(`/databases/${db}/fields`)).set(admin.auth).expect(200)).body.data as Array<{ api_name: string; options: { choices?: Array<{ id: string; label: string }> } }>;
      return new Map(fields.find((f) => f.api_name === api_name)!.options.choices!.map((c) => [c.label, c.id]));
    };
    const stages = await choiceIds(source, 'stage');
    const tags = await choiceIds(source, 'tags');
    for (const row of ROWS) {
      const values = { ...row, stage: row.stage === null ? null : stages.get(row.stage as string), tags: (row.tags as string[]).map((l) => tags.get(l)) };
      const created = await t.request.post(api(`/databases/${source}/records`)).set(admin.auth).send({ values });
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
    const first = await exportCsv(source);
    const table = parse(first) as string[][];
    assert.deepEqual(table[0], ['Name', ...FIELDS.map((f) => f.name)]);
    assert.equal(table.length, 1 + ROWS.length);

    const target = await database('Copy');
    const mapping = Object.fromEntries([['Name', 'name'], ...FIELDS.map((f) => [f.name, { create: f }])]);
    const imported = await t.request
      .post(api(`/databases/${target}/import`))
      .set(admin.auth)
      .attach('file', Buffer.from(first, 'utf8'), { filename: 'source.csv', contentType: 'text/csv' })
      .field('mapping', JSON.stringify(mapping))
      .expect(201);
    assert.deepEqual(imported.body, { created: ROWS.length });

    assert.equal(await exportCsv(target), first, 'the copy exports exactly as the source does');
    const copied = (await t.request.get(api(`/databases/${target}/records`)).set(admin.auth).expect(200)).body.data as Array<{ values: Record<string, unknown> }>;
    assert.deepEqual(copied.map((r) => [r.values.code, r.values.amount, r.values.price]), ROWS.map((r) => [r.code, r.amount, r.price]));
  });
});
