import assert from 'node:assert/strict';
import { stringify } from 'csv-stringify/sync';
import { BUILTIN_FIELD_TYPES } from '../../../plugins/databases/field-types/builtins.ts';
import { columnNameOf, tableNameOf } from '../../../plugins/databases/public.ts';
import { exportWorld, startTestKernel, type ExportWorld } from './world.ts';

interface Field {
  id: string;
  api_name: string;
  name: string;
  type: string;
  options: Record<string, unknown>;
  is_title: boolean;
}

/**
 * The cells PostgreSQL writes (each type's `csv.formatSql`) against the cells JS writes (`csv.format` of what record
 * reads give, quoted by csv-stringify as the export used to be): byte for byte the same, values at the edges included,
 * and values no API write would store (more decimals than the field's precision, more digits than a double holds).
 */
describe('export: cells written by PostgreSQL are the ones JS writes', () => {
  let w: ExportWorld;
  let fields: Field[];

  const field = (body: object) => w.t.request.post(w.api(`/databases/${w.db}/fields`)).set(w.admin.auth).send(body).expect(201);
  const create = async (values: object) => {
    const res = await w.t.request.post(w.api(`/databases/${w.db}/records`)).set(w.editor.auth).send({ values });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id as string;
  };
  const set = (id: string, api: string, sql: string) => {
    const f = fields.find((x) => x.api_name === api)!;
    return w.t.db.raw(`UPDATE "${tableNameOf(w.db)}" SET "${columnNameOf(f.id)}" = ${sql} WHERE id = ?`, [id]);
  };

  before(async () => {
    w = await exportWorld(await startTestKernel({ config: { plugins: { export: { options: { pageSize: 100, viewPageSize: 100 } } } } }));
    await field({ name: 'Plain', type: 'text' });
    await field({ name: 'Long', type: 'long_text' });
    await field({ name: 'Mail', type: 'email' });
    await field({ name: 'Link', type: 'url' });
    await field({ name: 'Phone', type: 'phone' });
    await field({ name: 'Whole', type: 'number', options: { precision: 0 } });
    await field({ name: 'Cents', type: 'number', options: { precision: 2 } });
    await field({ name: 'Fine', type: 'number', options: { precision: 10 } });
    await field({ name: 'Euros', type: 'currency', options: { precision: 2, symbol: '€' } });
    await field({ name: 'Quoted', type: 'currency', options: { precision: 0, symbol: '"' } });
    await field({ name: 'Stars', type: 'rating', options: { max: 5 } });
    await field({ name: 'Day', type: 'date' });
    await field({ name: 'At', type: 'datetime' });
    await field({ name: 'At Kolkata', type: 'datetime', options: { time_zone: 'Asia/Kolkata' } });
    await field({ name: 'At New York', type: 'datetime', options: { time_zone: 'America/New_York' } });
    await field({ name: 'Ticked', type: 'checkbox' });
    await field({ name: 'Pick', type: 'single_select', options: { choices: [{ label: 'a, b' }, { label: 'say "hi"' }, { label: 'two\nlines' }, { label: 'plain' }, { label: 'why? \\? ??' }] } });
    fields = (await w.t.request.get(w.api(`/databases/${w.db}/fields`)).set(w.admin.auth).expect(200)).body.data;

    const first = await create({
      name: 'Comma, "quotes"\r\nCRLF',
      plain: 'cr\ronly',
      long: 'lf\nonly',
      mail: 'a@b.example',
      link: 'https://example.com/?a=1,2',
      phone: '+33 6 12',
      whole: -12,
      cents: 1234.5,
      fine: 0.0000001,
      euros: -0.5,
      quoted: 7,
      stars: 5,
      day: '2024-02-29',
      at: '2024-07-01T09:30:00.123Z',
      at_kolkata: '2024-07-01T09:30:00Z',
      at_new_york: '2024-03-10T06:59:59Z',
      ticked: true,
      pick: 'a, b',
    });
    const second = await create({ name: '=SUM(A1)', plain: '', whole: 999999999999999, cents: -0.01, fine: 123456.0123456789, euros: 1e14, stars: 0, at_new_york: '2024-11-03T05:30:00Z', pick: 'say "hi"' });
    const third = await create({ name: 'two\nlines', pick: 'two\nlines', ticked: false });
    await create({ name: 'why', pick: 'why? \\? ??' });
    await create({});
    // What no API write stores: a precision lowered under stored values, digits past a double's, microseconds.
    await set(first, 'cents', `'1.005'`);
    await set(second, 'cents', `'-0.004'`);
    await set(third, 'cents', `'2.675'`);
    await set(first, 'fine', `'123456789012345.1234567891'`);
    await set(third, 'fine', `'0.1000000000000000055511151231257827'`);
    await set(third, 'whole', `'-0.5'`);
    await set(third, 'euros', `'-0.005'`);
    await set(third, 'quoted', `'-2.5'`);
    await set(third, 'at_new_york', `'2024-03-10 06:59:59.999999+00'`);
    await set(third, 'at_kolkata', `'1969-12-31 23:59:59.5+00'`);
  });
  after(() => w.t.stop());

  it('exports what csv.format and csv-stringify write from record reads, byte for byte (formulas=raw)', async () => {
    const exported = (await w.t.request.get(w.api(`/databases/${w.db}/export.csv`)).query({ formulas: 'raw' }).set(w.admin.auth).buffer(true).expect(200)).text;
    const header = exported.slice(0, exported.indexOf('\r\n')).split(',');
    const columns = header.map((name) => fields.find((f) => f.name === name)!);
    const records = (await w.t.request.get(w.api(`/databases/${w.db}/records`)).query({ limit: 100 }).set(w.admin.auth).expect(200)).body.data as Array<{ values: Record<string, unknown> }>;
    assert.equal(records.length, 5);
    const cell = (f: Field, value: unknown) => {
      if (value === null || value === undefined) return '';
      return BUILTIN_FIELD_TYPES.find((t) => t.type === f.type)!.csv.format(value, f);
    };
    const expected = stringify([header, ...records.map((r) => columns.map((f) => cell(f, r.values[f.api_name])))], { record_delimiter: 'windows', quoted_match: /[\r\n]/ });
    assert.equal(exported, expected);
  });

  it('writes only the title through a view that hides every other field', async () => {
    const hidden = fields.filter((f) => !f.is_title).map((f) => f.api_name);
    const view = (await w.t.request.post(w.api(`/databases/${w.db}/views`)).set(w.admin.auth).send({ name: 'Nothing', type: 'grid', hidden_fields: hidden }).expect(201)).body.id;
    const res = await w.t.request.get(w.api(`/databases/${w.db}/export.csv`)).query({ view_id: view }).set(w.admin.auth).buffer(true).expect(200);
    assert.equal(res.text, 'Name\r\n"Comma, ""quotes""\r\nCRLF"\r\n"\'=SUM(A1)"\r\n"two\nlines"\r\nwhy\r\n\r\n');
  });

  it('has PostgreSQL write every cell of these types', () => {
    const inJs = fields.filter((f) => !BUILTIN_FIELD_TYPES.find((t) => t.type === f.type)!.csv.formatSql).map((f) => f.type);
    assert.deepEqual([...new Set(inJs)].sort(), ['created_by', 'updated_by']);
  });
});
