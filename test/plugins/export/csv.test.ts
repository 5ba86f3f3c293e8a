import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { exportWorld, startTestKernel, type ExportWorld } from './world.ts';

describe('export: CSV of a database or a view', () => {
  let w: ExportWorld;
  let csvUrl: string;
  let people: string;

  const field = async (body: object, db = w.db) => (await w.t.request.post(w.api(`/databases/${db}/fields`)).set(w.admin.auth).send(body).expect(201)).body as { id: string; api_name: string };
  const create = async (values: object, db = w.db) => {
    const res = await w.t.request.post(w.api(`/databases/${db}/records`)).set(w.editor.auth).send({ values });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id as string;
  };
  const get = (query: Record<string, string> = {}, auth = w.member.auth) => w.t.request.get(csvUrl).query(query).set(auth);
  const rows = (text: string) => parse(text, { bom: false, relax_column_count: false }) as string[][];

  before(async () => {
    w = await exportWorld(await startTestKernel({ config: { plugins: { export: { options: { pageSize: 100, viewPageSize: 100 } } } } }));
    csvUrl = w.api(`/databases/${w.db}/export.csv`);
    await field({ name: 'Code', type: 'text' });
    await field({ name: 'Amount', type: 'number', options: { precision: 2 } });
    await field({ name: 'Stage', type: 'single_select', options: { choices: [{ label: 'Open' }, { label: 'Won, finally' }] } });
    await field({ name: 'Tags', type: 'multi_select', options: { choices: [{ label: 'red' }, { label: 'blue' }] } });
    await field({ name: 'Due', type: 'date' });
    await field({ name: 'Met at', type: 'datetime' });
    await field({ name: 'Signed', type: 'checkbox' });
    await field({ name: 'Owner', type: 'user' });
    await field({ name: 'Notes', type: 'long_text' });
    await field({ name: 'Secret', type: 'text' });
    const space = (await w.t.request.get(w.api(`/databases/${w.db}`)).set(w.admin.auth).expect(200)).body.space_id;
    people = (await w.t.request.post(w.api('/databases')).set(w.admin.auth).send({ name: 'People', space_id: space }).expect(201)).body.id;
    await w.t.request.post(w.api('/relations')).set(w.admin.auth).send({ from_database_id: w.db, to_database_id: people, kind: 'many_to_many', from_field_name: 'Contacts', to_field_name: 'Deals' }).expect(201);
    const ann = await create({ name: 'Ann "the closer"' }, people);
    const bob = await create({ name: 'Bob, Jr.' }, people);
    await create({
      name: 'Comma, "quotes"\nand a line',
      code: '007',
      amount: 1234.5,
      stage: 'Won, finally',
      tags: ['blue', 'red'],
      due: '2024-02-29',
      met_at: '2024-07-01T09:30:00Z',
      signed: true,
      owner: w.admin.id,
      notes: 'héllo wörld — 日本語 😀\r\nsecond line',
      secret: 'do not show',
      contacts: [ann, bob],
    });
    await create({ name: '=SUM(A1:A2)', code: '+33 6 12', amount: -0.01, stage: 'Open', signed: false, notes: '@cmd', secret: 's2' });
    await create({ name: 'Empty one' });
  });
  after(() => w.t.stop());

  it('streams every field in manual order, RFC 4180 quoted, as text/csv with an attachment name', async () => {
    const res = await get().expect(200);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(res.headers['content-disposition'], `attachment; filename="Deals.csv"; filename*=UTF-8''Deals.csv`);
    const text = res.text;
    assert.ok(text.startsWith('Name,Created,Last modified,Created by,Last modified by,Code,Amount,Stage,Tags,Due,Met at,Signed,Owner,Notes,Secret,Contacts\r\n'), text.slice(0, 200));
    // Quotes doubled, cells with commas, quotes or line breaks (LF or CRLF) quoted; CRLF between records.
    assert.ok(text.includes('"Comma, ""quotes""\nand a line"'));
    assert.ok(text.includes('"héllo wörld — 日本語 😀\r\nsecond line"'));
    assert.ok(text.endsWith('\r\n'));
    const [header, ...data] = rows(text);
    assert.equal(data.length, 3);
    const cell = (row: string[], name: string) => row[header.indexOf(name)];
    const [tricky, formula, empty] = data;
    assert.equal(cell(tricky, 'Name'), 'Comma, "quotes"\nand a line');
    assert.equal(cell(tricky, 'Code'), '007', 'leading zeros kept');
    assert.equal(cell(tricky, 'Amount'), '1234.50', 'decimals exact, at the field’s precision');
    assert.equal(cell(tricky, 'Stage'), 'Won, finally', 'select label');
    assert.equal(cell(tricky, 'Tags'), 'red, blue');
    assert.equal(cell(tricky, 'Due'), '2024-02-29');
    assert.equal(cell(tricky, 'Met at'), '2024-07-01T09:30:00Z');
    assert.equal(cell(tricky, 'Signed'), 'true');
    assert.equal(cell(tricky, 'Owner'), 'Ada Admin', 'user name');
    assert.equal(cell(tricky, 'Contacts'), 'Ann "the closer", Bob, Jr.', 'link titles');
    assert.equal(cell(tricky, 'Created by'), 'Eddie Editor');
    assert.match(cell(tricky, 'Created'), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // Formula-like cells are neutralised (a leading ', quoted); a plain number is left a number.
    assert.ok(text.includes(`"'=SUM(A1:A2)"`));
    assert.equal(cell(formula, 'Name'), "'=SUM(A1:A2)");
    assert.equal(cell(formula, 'Code'), "'+33 6 12");
    assert.equal(cell(formula, 'Amount'), '-0.01');
    assert.equal(cell(formula, 'Notes'), "'@cmd");
    assert.equal(cell(formula, 'Signed'), 'false');
    assert.deepEqual(['Code', 'Amount', 'Stage', 'Tags', 'Due', 'Owner', 'Contacts'].map((n) => cell(empty, n)), ['', '', '', '', '', '', '']);
  });

  it('exports the columns `fields` names, by api_name or id, in that order; an unknown one is a 422 naming it', async () => {
    const amount = (await w.t.request.get(w.api(`/databases/${w.db}/fields/amount`)).set(w.admin.auth).expect(200)).body.id;
    const res = await get({ fields: `code,${amount},name` }).expect(200);
    assert.deepEqual(rows(res.text), [['Code', 'Amount', 'Name'], ['007', '1234.50', 'Comma, "quotes"\nand a line'], ["'+33 6 12", '-0.01', "'=SUM(A1:A2)"], ['', '', 'Empty one']]);
    const bad = await get({ fields: 'code,nope,other' }).expect(422);
    assert.equal(bad.headers['content-type'], 'application/problem+json');
    assert.deepEqual(bad.body.errors.map((e: { pointer: string }) => e.pointer), ['/query/fields']);
    assert.match(bad.body.errors[0].detail, /"nope", "other"/);
    await get({ fields: 'code,,name' }).expect(422);
    // Hostile or malformed input is refused, never a 500.
    await get({ view_id: 'not-a-uuid' }).expect(422);
    await get({ fields: 'x'.repeat(8193) }).expect(422);
    await get({ fields: 'code\u0000' }).expect(422);
    await get({ format: 'xlsx' }).expect(422);
    await get({ formulas: 'none' }).expect(422);
  });

  it('neutralises every formula-like cell by default (OWASP), and writes them as stored with formulas=raw', async () => {
    const hostile = ['=1+2";=1+2', '+cmd', '-2+3+cmd|\' /C calc\'!A0', '@SUM(1)', '\t=1', '\r=1', 'a;=1+2', 'tab\tinside'];
    const ids: string[] = [];
    for (const notes of hostile) ids.push(await create({ name: 'hostile', notes }));
    await field({ name: '=HYPERLINK("http://evil")', api_name: 'evil', type: 'text' });
    try {
      const neutral = await get({ fields: 'notes,evil' }).expect(200);
      const lines = neutral.text.split('\r\n');
      assert.equal(lines[0], `Notes,"'=HYPERLINK(""http://evil"")"`);
      const written = rows(neutral.text).slice(-hostile.length).map((r) => r[0]);
      assert.deepEqual(written, ["'=1+2\";=1+2", "'+cmd", "'-2+3+cmd|' /C calc'!A0", "'@SUM(1)", "'\t=1", "'\r=1", 'a;=1+2', 'tab\tinside']);
      // Quoted, so a spreadsheet splitting on ; or tabs finds no new cell inside.
      assert.ok(neutral.text.includes('"a;=1+2"') && neutral.text.includes('"tab\tinside"'));
      for (const line of lines.slice(1)) assert.doesNotMatch(line, /(^|,)[=+\-@\t\r]/, line);

      const raw = await get({ fields: 'notes,evil', formulas: 'raw' }).expect(200);
      assert.equal(raw.text.split('\r\n')[0], 'Notes,"=HYPERLINK(""http://evil"")"');
      assert.deepEqual(rows(raw.text).slice(-hostile.length).map((r) => r[0]), hostile);
    } finally {
      for (const id of ids) await w.t.request.delete(w.api(`/databases/${w.db}/records/${id}`)).set(w.editor.auth).expect(204);
      await w.t.request.delete(w.api(`/databases/${w.db}/fields/evil`)).set(w.admin.auth);
    }
  });

  it("follows a view: its filter, sorts, field order and hidden fields, with the caller's own override", async () => {
    const more = await create({ name: 'Zed', code: '010', amount: 5, stage: 'Open', secret: 's3' });
    const view = (
      await w.t.request
        .post(w.api(`/databases/${w.db}/views`))
        .set(w.admin.auth)
        .send({ name: 'Open deals', type: 'grid', filter: { field: 'stage', op: 'eq', value: 'Open' }, sorts: [{ field: 'amount', direction: 'desc' }], field_order: ['amount', 'name'], hidden_fields: ['secret', 'notes', 'created_at', 'updated_at', 'created_by', 'updated_by', 'tags', 'due', 'met_at', 'owner', 'contacts', 'signed', 'stage'] })
        .expect(201)
    ).body;
    const res = await get({ view_id: view.id }).expect(200);
    assert.equal(res.headers['content-disposition'], `attachment; filename="Deals - Open deals.csv"; filename*=UTF-8''Deals%20-%20Open%20deals.csv`);
    assert.deepEqual(rows(res.text), [['Amount', 'Name', 'Code'], ['5.00', 'Zed', '010'], ['-0.01', "'=SUM(A1:A2)", "'+33 6 12"]]);
    assert.ok(!res.text.includes('s3') && !res.text.includes('Secret'), 'a hidden field is not exported');
    const refused = await get({ view_id: view.id, fields: 'name,secret,notes' }).expect(422);
    assert.match(refused.body.errors[0].detail, /"secret", "notes" are hidden in this view/);
    assert.deepEqual(rows((await get({ view_id: view.id, fields: 'code,name' }).expect(200)).text)[0], ['Code', 'Name']);

    // The member's override narrows the view for that member only.
    await w.t.request.put(w.api(`/databases/${w.db}/views/${view.id}/overrides`)).set(w.member.auth).send({ filter: { field: 'code', op: 'eq', value: '010' } }).expect(200);
    assert.deepEqual(rows((await get({ view_id: view.id }).expect(200)).text).map((r) => r[1]), ['Name', 'Zed']);
    assert.equal(rows((await get({ view_id: view.id }, w.editor.auth).expect(200)).text).length, 3);
    await w.t.request.delete(w.api(`/databases/${w.db}/records/${more}`)).set(w.editor.auth).expect(204);

    const otherView = (await w.t.request.get(w.api(`/databases/${people}/views`)).set(w.admin.auth).expect(200)).body.data[0].id;
    const wrong = await get({ view_id: otherView }).expect(422);
    assert.deepEqual(wrong.body.errors.map((e: { pointer: string }) => e.pointer), ['/query/view_id']);
    await get({ view_id: randomUUID() }).expect(422);
  });

  it('pages through many records in order without losing or repeating one', async () => {
    const big = (await w.t.request.post(w.api('/databases')).set(w.admin.auth).send({ name: 'Big', space_id: w.space }).expect(201)).body.id;
    for (let i = 0; i < 5; i++) {
      const records = Array.from({ length: 100 }, (_, j) => ({ values: { name: `r${String(i * 100 + j).padStart(4, '0')}` } }));
      await w.t.request.post(w.api(`/databases/${big}/records`)).set(w.editor.auth).send({ records }).expect(201);
    }
    // pageSize and viewPageSize are 100 in this kernel: five full pages.
    const res = await w.t.request.get(w.api(`/databases/${big}/export.csv`)).query({ fields: 'name' }).set(w.member.auth).expect(200);
    const names = rows(res.text).slice(1).map((r) => r[0]);
    assert.equal(names.length, 500);
    assert.deepEqual(names, [...names].sort());
    assert.equal(new Set(names).size, 500);

    // Through a view sorted on a key with empty cells, descending: empty cells last, ties broken by id, across pages.
    await w.t.request.post(w.api(`/databases/${big}/fields`)).set(w.admin.auth).send({ name: 'Rank', type: 'number' }).expect(201);
    const all = (await w.t.request.post(w.api(`/databases/${big}/records/query`)).set(w.admin.auth).send({ limit: 1000 }).expect(200)).body.data as Array<{ id: string }>;
    const updates = all.flatMap((r, i) => (i % 7 === 0 ? [] : [{ id: r.id, values: { rank: i % 13 } }]));
    for (let i = 0; i < updates.length; i += 200) await w.t.request.patch(w.api(`/databases/${big}/records`)).set(w.editor.auth).send({ records: updates.slice(i, i + 200) }).expect(200);
    const view = (await w.t.request.post(w.api(`/databases/${big}/views`)).set(w.admin.auth).send({ name: 'By rank', type: 'grid', sorts: [{ field: 'rank', direction: 'desc' }] }).expect(201)).body.id;
    const expected: string[] = [];
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page: { data: Array<{ values: { name: string } }>; next_cursor: string | null } = (await w.t.request.post(w.api(`/databases/${big}/records/query`)).set(w.member.auth).send({ view_id: view, limit: 1000, ...(cursor ? { cursor } : {}) }).expect(200)).body;
      expected.push(...page.data.map((r) => r.values.name));
      cursor = page.next_cursor;
    }
    const sorted = rows((await w.t.request.get(w.api(`/databases/${big}/export.csv`)).query({ view_id: view, fields: 'name,rank' }).set(w.member.auth).expect(200)).text).slice(1);
    assert.equal(sorted.length, 500);
    assert.deepEqual(sorted.map((r) => r[0]), expected, 'the same order as record queries through the view');
    assert.equal(sorted[0][1], '12');
    assert.deepEqual(sorted.slice(-72).map((r) => r[1]), Array(72).fill(''), 'empty cells last');
  });

  it('answers 404 for a database the caller cannot see, and serves read tokens and guests in their space', async () => {
    await w.t.request.get(csvUrl).expect(401);
    await get({}, w.outsider.auth).expect(404);
    await w.t.request.get(w.api(`/databases/${randomUUID()}/export.csv`)).set(w.member.auth).expect(404);
    await w.t.request.get(`/api/v1/workspaces/${w.otherWs}/databases/${w.db}/export.csv`).set(w.outsider.auth).expect(404);
    await get({}, w.guest.auth).expect(200);
    const hidden = (await w.t.request.post(w.api('/spaces')).set(w.admin.auth).send({ name: 'T' }).expect(201)).body.id;
    const elsewhere = (await w.t.request.post(w.api('/databases')).set(w.admin.auth).send({ name: 'Hidden', space_id: hidden }).expect(201)).body.id;
    await w.t.request.get(w.api(`/databases/${elsewhere}/export.csv`)).set(w.guest.auth).expect(404);
    const pat = (await w.t.request.post('/api/v1/me/tokens').set(w.member.auth).send({ name: 'reader', workspace_id: w.ws }).expect(201)).body.token;
    const res = await w.t.request.get(csvUrl).query({ fields: 'code' }).set({ Authorization: `Bearer ${pat}` }).expect(200);
    assert.deepEqual(rows(res.text), [['Code'], ['007'], ["'+33 6 12"], ['']]);
  });
});
