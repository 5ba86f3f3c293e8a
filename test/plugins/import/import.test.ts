import assert from 'node:assert/strict';
import { importWorld, sendImport, recordsOf, fieldNames, type ImportWorld } from './setup.ts';
import { memberExport } from '../documents/member-export.ts';

const pointers = (res: { body: { errors?: Array<{ pointer: string }> } }) => (res.body.errors ?? []).map((e) => e.pointer).sort();

describe('import: CSV into a database', function () {
  this.timeout(120_000);
  let w: ImportWorld;
  before(async () => {
    w = await importWorld();
  });
  after(() => w.t.stop());

  async function emptyDatabase(): Promise<void> {
    const ids = (await recordsOf(w)).map((r) => r.id);
    if (ids.length > 0) await w.t.request.post(w.url('/records/delete')).set(w.admin.auth).send({ ids }).expect(200);
  }
  beforeEach(emptyDatabase);

  describe('dry run', () => {
    it('answers rows, valid rows, errors and what each column looks like, and writes nothing', async () => {
      const csv = [
        'Name,Zip,Price,Day,Paid,Mail,Site,Note,Blank',
        'Acme,01234,12.50,2024-05-01,yes,a@acme.test,https://acme.test,hello,',
        'Beta,10115,3,2024-02-29,no,b@beta.test,http://beta.test/x,"two, words",',
        'Gamma,00501,0.125,2023-12-31,x,c@gamma.test,https://g.test,9,',
      ].join('\n');
      const mapping = { Name: 'name', Zip: 'code', Price: null, Day: 'due', Paid: 'done', Mail: null, Site: null, Note: { create: { name: 'Note', type: 'text' } }, Blank: null };
      const before = await fieldNames(w);
      const res = await sendImport(w, w.admin, csv, mapping, true).expect(200);
      assert.equal(res.body.rows, 3);
      assert.equal(res.body.valid, 3);
      assert.deepEqual(res.body.errors, []);
      const byHeader = Object.fromEntries(res.body.columns.map((c: { header: string }) => [c.header, c]));
      assert.deepEqual(res.body.columns.map((c: { header: string }) => c.header), ['Name', 'Zip', 'Price', 'Day', 'Paid', 'Mail', 'Site', 'Note', 'Blank']);
      assert.deepEqual(
        Object.fromEntries(res.body.columns.map((c: { header: string; detected_type: string }) => [c.header, c.detected_type])),
        { Name: 'text', Zip: 'text', Price: 'number', Day: 'date', Paid: 'checkbox', Mail: 'email', Site: 'url', Note: 'text', Blank: 'empty' },
      );
      assert.deepEqual(byHeader.Zip, { header: 'Zip', field: 'code', detected_type: 'text', samples: ['01234', '10115', '00501'] });
      assert.equal(byHeader.Price.field, null, 'a skipped column goes nowhere');
      assert.equal(byHeader.Note.field, 'note', 'a new field is named as it would be');
      assert.deepEqual(byHeader.Note.samples, ['hello', 'two, words', '9']);
      assert.deepEqual(await recordsOf(w), []);
      assert.deepEqual(await fieldNames(w), before, 'no field is created by a dry run');
    });

    it('lists row errors with the 1-based data row and the header, and counts valid rows', async () => {
      const csv = 'Name,Amount,Due\nok,1.5,2024-01-01\nbad,abc,2024-02-30\nfine,2,\n';
      const res = await sendImport(w, w.editor, csv, { Name: 'name', Amount: 'amount', Due: 'due' }, true).expect(200);
      assert.equal(res.body.rows, 3);
      assert.equal(res.body.valid, 2);
      assert.deepEqual(res.body.errors.map((e: { row: number; column: string }) => [e.row, e.column]), [[2, 'Amount'], [2, 'Due']]);
      assert.match(res.body.errors[0].detail, /abc/);
    });

    it('checks the cells of a field it would create with that type', async () => {
      const csv = 'Name,Qty\na,1\nb,1.5\n';
      const res = await sendImport(w, w.admin, csv, { Name: 'name', Qty: { create: { name: 'Qty', type: 'number' } } }, true).expect(200);
      assert.equal(res.body.valid, 1);
      assert.deepEqual(res.body.errors.map((e: { row: number; column: string }) => [e.row, e.column]), [[2, 'Qty']]);
      assert.match(res.body.errors[0].detail, /decimal places/);
    });

    it('detects number only when every value is an exact decimal', async () => {
      const csv = 'A,B,C,D,E\n1,0.1,007,12345678901234567890.123,1\n-2.5,1,1,1,0\n1,234.5,2,3,1\n';
      const res = await sendImport(w, w.admin, csv, { A: 'name', B: null, C: null, D: null, E: null }, true).expect(200);
      const types = res.body.columns.map((c: { detected_type: string }) => c.detected_type);
      assert.deepEqual(types, ['number', 'number', 'text', 'text', 'number']);
    });
  });

  describe('values kept as written', () => {
    it('keeps leading zeros in text fields', async () => {
      await sendImport(w, w.editor, 'Name,Code\nx,007\ny,000123\nz,0\n', { Name: 'name', Code: 'code' }).expect(201, { created: 3 });
      assert.deepEqual((await recordsOf(w)).map((r) => r.values.code), ['007', '000123', '0']);
    });

    it('stores decimals exactly, refuses what a field cannot keep, and keeps long decimals in text', async () => {
      const res = await sendImport(w, w.editor, 'Name,Amount,Code\na,0.1,12345678901234567890.123\nb,1234567.89,0.1\n', { Name: 'name', Amount: 'amount', Code: 'code' }).expect(201);
      assert.equal(res.body.created, 2);
      const rows = await recordsOf(w);
      assert.deepEqual(rows.map((r) => [r.values.amount, r.values.code]), [[0.1, '12345678901234567890.123'], [1234567.89, '0.1']]);
      const table = (await w.t.db('databases').where({ id: w.db }).first('table_name')).table_name;
      const column = (await w.t.db('fields').where({ database_id: w.db, api_name: 'amount' }).first('column_name')).column_name;
      const stored = await w.t.db(table).whereNull('deleted_at').orderBy('position').select(w.t.db.raw('??::text AS v', [column]));
      assert.deepEqual(stored.map((r: { v: string }) => r.v), ['0.10', '1234567.89']);

      await emptyDatabase();
      const refused = await sendImport(w, w.editor, 'Name,Amount\na,12345678901234567890.123\nb,0.125\nc,1e3\n', { Name: 'name', Amount: 'amount' }).expect(422);
      assert.deepEqual(refused.body.errors.map((e: { row: number; column: string }) => [e.row, e.column]), [[1, 'Amount'], [2, 'Amount'], [3, 'Amount']]);
      assert.match(refused.body.errors[0].detail, /significant digits/);
      assert.match(refused.body.errors[1].detail, /2 decimal places/, 'never rounded');
      assert.deepEqual(await recordsOf(w), []);
    });

    it('reads quoted fields with commas, quotes and newlines, and a BOM', async () => {
      const csv = '\uFEFFName,Code\n"Line one\nline two","a ""quoted"", b"\r\nplain,x\n';
      await sendImport(w, w.editor, csv, { Name: 'name', Code: 'code' }).expect(201, { created: 2 });
      const rows = await recordsOf(w);
      assert.deepEqual(rows.map((r) => [r.values.name, r.values.code]), [['Line one\nline two', 'a "quoted", b'], ['plain', 'x']]);
    });

    it('keeps history per batch: one activity entry naming the import, and each record reading as version 1 with its imported values', async () => {
      const batches = async () => (await w.t.request.get(`/api/v1/workspaces/${w.ws}/activity`).query({ database_id: w.db, type: 'records.created' }).set(w.admin.auth).expect(200)).body.data;
      const before = (await batches()).length;
      await sendImport(w, w.editor, 'Name,Amount,Done\nTraced,12.5,yes\nSecond,,no\n', { Name: 'name', Amount: 'amount', Done: 'done' }).expect(201);
      const [traced, second] = await recordsOf(w);
      const trail = await batches();
      assert.equal(trail.length, before + 1, 'one entry for the batch');
      const [entry] = trail;
      assert.equal(entry.record_id, null);
      assert.equal(entry.actor.id, w.editor.id);
      assert.deepEqual(entry.changes, [{ field: null, name: 'records', before: null, after: 2 }]);
      assert.equal(entry.origin.type, 'import');
      const run = await w.t.request.get(w.url(`/imports/${entry.origin.id}`)).set(w.member.auth).expect(200);
      assert.equal(run.body.status, 'succeeded');
      assert.equal(run.body.created, 2);
      assert.deepEqual((await w.t.request.get(w.url(`/records/${traced.id}/activity`)).set(w.admin.auth).expect(200)).body.data, [], 'no entry per record');
      assert.equal(Number((await w.t.db('record_versions').whereIn('record_id', [traced.id, second.id]).count({ n: '*' }).first())?.n), 0, 'no version row per record');

      const first = (await w.t.request.get(w.url(`/records/${traced.id}/versions`)).set(w.admin.auth).expect(200)).body.data;
      assert.equal(first.length, 1);
      assert.equal(first[0].version, 1);
      assert.deepEqual(first[0].origin, entry.origin, 'the first version says where it came from');
      assert.equal(first[0].created_by, w.editor.id);
      assert.deepEqual([first[0].values.name, first[0].values.amount, first[0].values.done], ['Traced', 12.5, true]);
      assert.deepEqual([...first[0].changed_fields].sort(), ['amount', 'done', 'name']);
      const other = (await w.t.request.get(w.url(`/records/${second.id}/versions`)).set(w.admin.auth).expect(200)).body.data;
      assert.deepEqual([other[0].values.name, other[0].values.amount, other[0].values.done, other[0].changed_fields], ['Second', null, false, ['name']]);

      // A later write is version 2; version 1 stays the imported values, and restoring it writes them back.
      await w.t.request.patch(w.url(`/records/${traced.id}`)).set(w.editor.auth).send({ values: { name: 'Renamed', amount: 3 } }).expect(200);
      const both = (await w.t.request.get(w.url(`/records/${traced.id}/versions`)).set(w.admin.auth).expect(200)).body.data;
      assert.deepEqual(both.map((v: { version: number; values: { name: string } }) => [v.version, v.values.name]), [[2, 'Renamed'], [1, 'Traced']]);
      const paged = await w.t.request.get(w.url(`/records/${traced.id}/versions`)).query({ limit: 1 }).set(w.admin.auth).expect(200);
      assert.deepEqual(paged.body.data.map((v: { version: number }) => v.version), [2]);
      const rest = await w.t.request.get(w.url(`/records/${traced.id}/versions`)).query({ limit: 1, cursor: paged.body.next_cursor }).set(w.admin.auth).expect(200);
      assert.deepEqual([rest.body.data.map((v: { version: number }) => v.version), rest.body.next_cursor], [[1], null]);
      const restored = await w.t.request.post(w.url(`/records/${traced.id}/versions/1/restore`)).set(w.editor.auth).send({}).expect(201);
      assert.equal(restored.body.version, 3);
      const now = (await w.t.request.get(w.url(`/records/${traced.id}`)).set(w.admin.auth).expect(200)).body.values;
      assert.deepEqual([now.name, now.amount], ['Traced', 12.5]);
    });
  });

  describe('mapping', () => {
    it('refuses headers without a mapping, listing each by name', async () => {
      const res = await sendImport(w, w.editor, 'Name,Code,Extra/1\na,b,c\n', { Name: 'name' }).expect(422);
      assert.equal(res.body.code, 'validation_failed');
      assert.deepEqual(pointers(res), ['/mapping/Code', '/mapping/Extra~11']);
      assert.ok(res.body.errors.some((e: { detail: string }) => e.detail.includes('"Code"')));
      assert.deepEqual(await recordsOf(w), []);
    });

    it('refuses mapping keys that are not headers, unknown fields, read-only fields and two headers to one field', async () => {
      const res = await sendImport(w, w.editor, 'Name,Code,When,Again\na,b,c,d\n', { Name: 'name', Code: 'nope', When: 'created_at', Again: 'name', Ghost: 'code' }).expect(422);
      assert.deepEqual(pointers(res), ['/mapping/Again', '/mapping/Code', '/mapping/Ghost', '/mapping/When']);
      const detail = Object.fromEntries(res.body.errors.map((e: { pointer: string; detail: string }) => [e.pointer, e.detail]));
      assert.match(detail['/mapping/When'], /cannot be written/);
      assert.match(detail['/mapping/Code'], /No field "nope"/);
    });

    it('refuses a field that is computed or managed elsewhere (a link) or a system field, named by id too', async () => {
      const fields = (await w.t.request.get(w.url('/fields')).set(w.admin.auth).expect(200)).body.data as Array<{ id: string; api_name: string }>;
      const updatedBy = fields.find((f) => f.api_name === 'updated_by')!;
      const space = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/spaces`).set(w.admin.auth).send({ name: 'Linked' }).expect(201)).body.id;
      const other = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/databases`).set(w.admin.auth).send({ name: 'Other', space_id: space }).expect(201)).body.id;
      await w.t.request
        .post(`/api/v1/workspaces/${w.ws}/relations`)
        .set(w.admin.auth)
        .send({ from_database_id: w.db, to_database_id: other, kind: 'many_to_many', from_field_name: 'Partners', to_field_name: 'Back' })
        .expect(201);
      const res = await sendImport(w, w.editor, 'Name,Who,Links\na,b,c\n', { Name: 'name', Who: updatedBy.id, Links: 'partners' }).expect(422);
      assert.deepEqual(pointers(res), ['/mapping/Links', '/mapping/Who']);
      assert.match(res.body.errors.find((e: { pointer: string }) => e.pointer === '/mapping/Links').detail, /link field "partners" cannot be written/);
    });

    it('takes nothing from the mapping object\'s prototype, and refuses more than 1,000 columns', async () => {
      const res = await sendImport(w, w.editor, 'Name,constructor,__proto__\na,b,c\n', { Name: 'name', ['__proto__']: null }).expect(422);
      assert.deepEqual(pointers(res), ['/mapping/constructor']);
      const wide = Array.from({ length: 1001 }, (_, i) => `c${i}`).join(',');
      assert.deepEqual(pointers(await sendImport(w, w.editor, `${wide}\n`, {}).expect(422)), ['/file']);
    });

    it('refuses duplicate headers', async () => {
      const res = await sendImport(w, w.editor, 'Name,Name\na,b\n', { Name: 'name' }).expect(422);
      assert.deepEqual(pointers(res), ['/file']);
      assert.match(res.body.errors[0].detail, /twice/);
    });

    it('refuses a new field of a type that cannot be written from text, or of a taken name', async () => {
      const res = await sendImport(w, w.admin, 'Name,A,B,C\na,b,c,d\n', {
        Name: 'name',
        A: { create: { name: 'A', type: 'autonumber' } },
        B: { create: { name: 'code', type: 'text' } },
        C: { create: { name: 'C', type: 'no_such_type' } },
      }).expect(422);
      assert.deepEqual(pointers(res), ['/mapping/A/create/type', '/mapping/B/create/name', '/mapping/C/create/type']);
    });

    it('refuses a mapping that is not a JSON object, and a bad dry_run', async () => {
      assert.deepEqual(pointers(await sendImport(w, w.editor, 'Name\na\n', '[1]').expect(422)), ['/mapping']);
      assert.deepEqual(pointers(await sendImport(w, w.editor, 'Name\na\n', '{nope').expect(422)), ['/mapping']);
      const res = await w.t.request.post(w.url('/import')).set(w.editor.auth).attach('file', Buffer.from('Name\na\n'), { filename: 'a.csv', contentType: 'text/csv' }).field('mapping', '{"Name":"name"}').field('dry_run', 'maybe').expect(422);
      assert.deepEqual(pointers(res), ['/dry_run']);
    });
  });

  describe('all or nothing', () => {
    it('creates the new fields and the records together', async () => {
      const res = await sendImport(w, w.creator, 'Name,Tags\na,x\nb,y\n', { Name: 'name', Tags: { create: { name: 'Tags', type: 'long_text' } } }).expect(201);
      assert.equal(res.body.created, 2);
      assert.ok((await fieldNames(w)).includes('tags'));
      assert.deepEqual((await recordsOf(w)).map((r) => r.values.tags), ['x', 'y']);
    });

    it('stores nothing, not even new fields, when the last row is invalid', async () => {
      const csv = ['Name,Amount,Extra', ...Array.from({ length: 2500 }, (_, i) => `r${i},${i}.25,e${i}`), 'last,not a number,e'].join('\n');
      const res = await sendImport(w, w.creator, csv, { Name: 'name', Amount: 'amount', Extra: { create: { name: 'Extra', type: 'text' } } }).expect(422);
      assert.equal(res.body.code, 'validation_failed');
      assert.deepEqual(res.body.errors.map((e: { row: number; column: string; pointer: string }) => [e.row, e.column, e.pointer]), [[2501, 'Amount', '/rows/2501/Amount']]);
      assert.deepEqual(await recordsOf(w), []);
      assert.ok(!(await fieldNames(w)).includes('extra'), 'the new field was not kept');
    });

    it('answers the first 100 problems and counts every bad row', async () => {
      const csv = ['Name,Amount', ...Array.from({ length: 150 }, (_, i) => `r${i},x${i}`)].join('\n');
      const res = await sendImport(w, w.editor, csv, { Name: 'name', Amount: 'amount' }).expect(422);
      assert.equal(res.body.errors.length, 100);
      assert.match(res.body.detail, /^150 rows/);
    });

    it('refuses a row with more or fewer cells than the header', async () => {
      const res = await sendImport(w, w.editor, 'Name,Code\na,b\nc\nd,e,f\n', { Name: 'name', Code: 'code' }).expect(422);
      assert.deepEqual(res.body.errors.map((e: { row: number; column: string | null }) => [e.row, e.column]), [[2, null], [3, null]]);
    });
  });

  describe('files', () => {
    it('refuses a binary upload (415) and bytes that are not UTF-8', async () => {
      const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4e60000000049454e44ae426082', 'hex');
      const res = await sendImport(w, w.editor, png, { Name: 'name' }).expect(415);
      assert.equal(res.body.code, 'unsupported_media_type');
      await sendImport(w, w.editor, Buffer.concat([Buffer.from('Name\n'), Buffer.from([0xff, 0xfe, 0x41, 0x0a])]), { Name: 'name' }).expect(415);
      await sendImport(w, w.editor, Buffer.from('Name\na\u0000b\n'), { Name: 'name' }).expect(415);
      assert.deepEqual(await recordsOf(w), []);
    });

    it('takes a text file whose first bytes look like a binary signature ("BM", "ID3", "%PDF") as the CSV it is', async () => {
      await sendImport(w, w.editor, 'BM,ID3,%PDF\na,b,c\n', { BM: 'name', ID3: 'code', '%PDF': null }).expect(201, { created: 1 });
      assert.deepEqual((await recordsOf(w)).map((r) => [r.values.name, r.values.code]), [['a', 'b']]);
    });

    it('refuses an empty file and malformed CSV with a pointer at the file', async () => {
      assert.deepEqual(pointers(await sendImport(w, w.editor, '', { Name: 'name' }).expect(422)), ['/file']);
      const res = await sendImport(w, w.editor, 'Name\n"unclosed\n', { Name: 'name' }).expect(422);
      assert.deepEqual(pointers(res), ['/file']);
    });

    it('refuses a file larger than maxBytes with 413', async () => {
      const big = await importWorld({ config: { plugins: { import: { options: { maxBytes: 2048 } } } } });
      try {
        const res = await sendImport(big, big.editor, `Name\n${'x'.repeat(10_000)}\n`, { Name: 'name' });
        assert.equal(res.status, 413);
      } finally {
        await big.t.stop();
      }
    });
  });

  describe('permissions', () => {
    it('lets editors import, needs a creator to create fields, and hides the database from outsiders', async () => {
      await sendImport(w, w.member, 'Name\na\n', { Name: 'name' }).expect(403);
      await sendImport(w, w.editor, 'Name,New\na,b\n', { Name: 'name', New: { create: { name: 'New', type: 'text' } } }).expect(403);
      await sendImport(w, w.outsider, 'Name\na\n', { Name: 'name' }).expect(404);
      await w.t.request.get(w.url(`/imports/${crypto.randomUUID()}`)).set(w.member.auth).expect(404);
      assert.deepEqual(await recordsOf(w), []);
    });
  });

  describe('GDPR', () => {
    // Last: the editor leaves the workspace.
    it('exports the imports a member sent, and deletes them when the member is erased', async () => {
      await sendImport(w, w.editor, 'Name\nmine\n', { Name: 'name' }).expect(201);
      const files = await memberExport(w.t, w.ws, w.admin, w.editor.id);
      const sent = files['imports.json'] as Array<{ database_id: string; status: string; created: number }>;
      assert.ok(sent.length > 0);
      assert.ok(sent.every((r) => r.database_id === w.db && r.status === 'succeeded'));
      const receipt = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/members/${w.editor.id}/erase`).set(w.admin.auth).send({ confirm: w.editor.email }).expect(200)).body;
      const report = receipt.reports.find((r: { kind: string }) => r.kind === 'imports');
      assert.deepEqual([report.deleted, report.pseudonymised], [sent.length, 0]);
      assert.equal((await w.t.db('import_runs').where({ created_by: w.editor.id })).length, 0);
    });
  });
});
