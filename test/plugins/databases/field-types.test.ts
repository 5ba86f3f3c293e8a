import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { AppError } from '../../../core/errors.ts';
import { compile } from '../../../core/schema.ts';
import { startTestKernel, type TestKernel } from '../../../core/testing.ts';
import { BUILTIN_FIELD_TYPES } from '../../../plugins/databases/field-types/builtins.ts';
import { FILTER_OPS, type FieldMeta, type FieldType, type OutputContext } from '../../../plugins/databases/field-types/field-type.ts';
import { InvalidCell } from '../../../plugins/databases/errors.ts';
import { FieldTypeRegistry } from '../../../plugins/databases/field-types/registry.ts';
import { roundDecimal, toPlainDecimal } from '../../../plugins/databases/field-types/decimal.ts';
import { placesOf } from '../../../plugins/databases/field-types/numeric-base.ts';

const types = new Map(BUILTIN_FIELD_TYPES.map((t) => [t.type, t]));
const typeOf = (name: string): FieldType => types.get(name)!;
const TEXT_LIKE = ['text', 'long_text', 'email', 'url', 'phone'];
const NUMERIC = ['number', 'currency', 'percent', 'rating', 'duration'];

/** A field as the fields service stores it: schema defaults applied, then normalizeOptions. */
function field(type: string, options: Record<string, unknown> = {}, previous?: Record<string, unknown>): FieldMeta<any> {
  const t = typeOf(type);
  const opts = structuredClone(options);
  const validate = compile(t.options);
  assert.ok(validate(opts), `${type} options ${JSON.stringify(options)}: ${JSON.stringify(validate.errors)}`);
  return { id: randomUUID(), api_name: type, type, options: t.normalizeOptions ? t.normalizeOptions(opts, previous) : opts };
}

const ann = randomUUID();
const ctx: OutputContext = { users: new Map([[ann, { id: ann, name: 'Ann' }]]) };

const write = (f: FieldMeta<any>, value: unknown) => typeOf(f.type).fromApi(value, f);

/** What a client reads back after writing `value`; null when the write empties the cell. */
function readBack(f: FieldMeta<any>, value: unknown): any {
  const stored = write(f, value);
  if (stored === null) return null;
  // json's column value is JSON text, which the driver would parse.
  return typeOf(f.type).toApi(f.type === 'json' ? JSON.parse(stored as string) : stored, f, ctx);
}

/** The API value of a value read from the database. */
const fromDb = (f: FieldMeta<any>, raw: unknown): any => (raw === null || raw === undefined ? null : typeOf(f.type).toApi(raw, f, ctx));

function refuses(f: FieldMeta<any>, value: unknown, detail?: RegExp): void {
  assert.throws(
    () => write(f, value),
    (err: unknown) => err instanceof InvalidCell && (!detail || detail.test(err.detail)),
    `${f.type} should refuse ${JSON.stringify(value)}`,
  );
}

function refusesOptions(type: string, options: Record<string, unknown>, pointer: string, previous?: Record<string, unknown>): void {
  assert.throws(
    () => field(type, options, previous),
    (err: unknown) => err instanceof AppError && err.status === 422 && err.errors?.[0]?.pointer === pointer,
  );
}

describe('field types: the built-in registry', () => {
  it('registers every built-in type once, each with its own column or a system column', () => {
    const registry = new FieldTypeRegistry();
    for (const t of BUILTIN_FIELD_TYPES) registry.add(t);
    const columns = Object.fromEntries(BUILTIN_FIELD_TYPES.map((t) => [t.type, t.column ? t.column(field(t.type).options) : `system:${t.systemColumn}`]));
    assert.deepEqual(columns, {
      text: 'text', long_text: 'text', email: 'text', url: 'text', phone: 'text',
      number: 'numeric', currency: 'numeric', percent: 'numeric', rating: 'smallint', duration: 'numeric',
      checkbox: 'boolean', date: 'date', datetime: 'timestamptz',
      single_select: 'uuid', multi_select: 'uuid[]', user: 'uuid', json: 'jsonb',
      autonumber: 'system:number', created_at: 'system:created_at', updated_at: 'system:updated_at',
      created_by: 'system:created_by', updated_by: 'system:updated_by',
    });
    assert.deepEqual(BUILTIN_FIELD_TYPES.filter((t) => t.readOnly).map((t) => t.type), ['autonumber', 'created_at', 'updated_at', 'created_by', 'updated_by']);
  });

  it('lists for each type the filter operators that fit it', () => {
    const text = ['eq', 'neq', 'contains', 'not_contains', 'starts_with', 'ends_with', 'is_empty', 'is_not_empty', 'is_any_of', 'is_none_of'];
    const numbers = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'is_empty', 'is_not_empty', 'is_any_of', 'is_none_of'];
    const dates = ['eq', 'neq', 'before', 'after', 'on_or_before', 'on_or_after', 'within', 'is_empty', 'is_not_empty'];
    const people = ['eq', 'neq', 'is_any_of', 'is_none_of', 'is_empty', 'is_not_empty'];
    const expected: Record<string, string[]> = {
      text, long_text: text, email: text, url: text, phone: text,
      number: numbers, currency: numbers, percent: numbers, rating: numbers, duration: numbers, autonumber: numbers,
      checkbox: ['eq', 'neq'],
      date: dates, datetime: dates, created_at: dates, updated_at: dates,
      single_select: people, multi_select: ['has_any_of', 'has_all_of', 'has_none_of', 'eq', 'is_empty', 'is_not_empty'],
      user: people, created_by: people, updated_by: people,
      json: ['is_empty', 'is_not_empty'],
    };
    assert.deepEqual(Object.fromEntries(BUILTIN_FIELD_TYPES.map((t) => [t.type, Object.keys(t.ops)])), expected);
    for (const t of BUILTIN_FIELD_TYPES) for (const op of Object.keys(t.ops)) assert.ok((FILTER_OPS as readonly string[]).includes(op));
  });

  it('lets text, long_text, number, email, url, phone, autonumber, date and datetime be the title', () => {
    assert.deepEqual(
      BUILTIN_FIELD_TYPES.filter((t) => t.canBeTitle).map((t) => t.type).sort(),
      ['autonumber', 'date', 'datetime', 'email', 'long_text', 'number', 'phone', 'text', 'url'],
    );
  });

  it('converts along the documented compatibility matrix, and nothing converts to or from system types or user', () => {
    const textTargets = [...TEXT_LIKE, ...NUMERIC, 'checkbox', 'date', 'datetime', 'single_select', 'multi_select', 'json'];
    const expected: Record<string, string[]> = {
      ...Object.fromEntries(TEXT_LIKE.map((t) => [t, textTargets.filter((x) => x !== t)])),
      // A numeric type converts to itself too: new options (a lower precision) round what is stored.
      ...Object.fromEntries(NUMERIC.map((t) => [t, [...NUMERIC, 'text', 'long_text', ...(t === 'number' ? ['checkbox'] : [])]])),
      checkbox: ['text', 'long_text', 'number'],
      date: ['text', 'long_text', 'datetime'],
      datetime: ['text', 'long_text', 'date'],
      single_select: ['text', 'long_text', 'multi_select'],
      multi_select: ['text', 'long_text', 'single_select'],
      json: ['text', 'long_text'],
      user: [], autonumber: [], created_at: [], updated_at: [], created_by: [], updated_by: [],
    };
    const actual = Object.fromEntries(BUILTIN_FIELD_TYPES.map((t) => [t.type, Object.keys(t.convertsTo).sort()]));
    assert.deepEqual(actual, Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, [...v].sort()])));
  });

  it('refuses unknown options and applies each type\'s defaults', () => {
    for (const t of BUILTIN_FIELD_TYPES) assert.equal(compile(t.options)({ surprise: 1 }), false, `${t.type} accepted an unknown option`);
    assert.deepEqual(field('number').options, { precision: 0, allow_negative: true });
    assert.deepEqual(field('currency').options, { precision: 2, allow_negative: true, symbol: '$', code: 'USD' });
    assert.deepEqual(field('percent').options, { precision: 0, allow_negative: true });
    assert.deepEqual(field('rating').options, { max: 5, icon: 'star' });
    assert.deepEqual(field('duration').options, { format: 'h:mm' });
    assert.deepEqual(field('datetime').options, { time_zone: 'UTC', date_format: 'iso', time_format: '24h' });
    assert.deepEqual(field('single_select').options, { choices: [] });
    assert.equal(compile(typeOf('number').options)({ precision: 11 }), false);
    assert.equal(compile(typeOf('rating').options)({ max: 11 }), false);
    assert.equal(compile(typeOf('currency').options)({ code: 'usd' }), false);
  });
});

describe('field types: text-like values', () => {
  it('text keeps what it is given, empties the cell on "", and caps the length at 10,000 characters', () => {
    const f = field('text');
    assert.equal(readBack(f, '  Hello  '), '  Hello  ');
    assert.equal(write(f, ''), null);
    assert.equal(readBack(f, 'x'.repeat(10_000)).length, 10_000);
    refuses(f, 'x'.repeat(10_001), /at most 10000 characters/);
    assert.equal(readBack(f, '😀'.repeat(10_000)), '😀'.repeat(10_000), 'characters, not UTF-16 units, are counted');
    refuses(f, 'nul\u0000byte', /NUL/);
    refuses(f, 12, /string/);
    refuses(f, ['a'], /string/);
  });

  it('long_text takes up to 100,000 characters, line breaks included', () => {
    const f = field('long_text');
    assert.equal(readBack(f, 'one\ntwo'), 'one\ntwo');
    assert.equal(write(f, 'y'.repeat(100_000)), 'y'.repeat(100_000));
    refuses(f, 'y'.repeat(100_001), /at most 100000/);
  });

  it('email, url and phone are trimmed and validated', () => {
    const email = field('email');
    assert.equal(readBack(email, '  Ann@Example.com '), 'Ann@Example.com');
    assert.equal(write(email, '   '), null);
    for (const bad of ['ann', 'ann@', '@example.com', 'ann@example', 'a b@example.com', 'ann@@example.com']) refuses(email, bad, /email/);
    refuses(email, `${'a'.repeat(250)}@x.io`, /254/);

    const url = field('url');
    assert.equal(readBack(url, ' https://example.com/a?b=c#d '), 'https://example.com/a?b=c#d');
    assert.equal(readBack(url, 'HTTP://localhost:3000'), 'HTTP://localhost:3000');
    for (const bad of ['ftp://example.com', 'javascript:alert(1)', 'example.com', 'https://', 'https:// example.com', 'https://exa mple.com']) refuses(url, bad, /http/);

    const phone = field('phone');
    assert.equal(readBack(phone, '+33 (0)1 23.45-67-89'), '+33 (0)1 23.45-67-89');
    for (const bad of ['call me', '+', '555-CALL', '1'.repeat(51)]) refuses(phone, bad);
  });
});

describe('field types: numbers', () => {
  it('number stores exactly what was sent, refusing digits past its precision instead of rounding them', () => {
    const f = field('number', { precision: 2 });
    assert.equal(readBack(f, 1.01), 1.01);
    assert.equal(write(f, 1.5), '1.50');
    assert.equal(readBack(f, -41.5), -41.5);
    assert.equal(readBack(f, 3), 3);
    refuses(f, 1.005, /at most 2 decimal places/);
    refuses(f, 0.1 + 0.2, /at most 2 decimal places/);
    const whole = field('number');
    assert.equal(readBack(whole, -42), -42);
    for (const bad of [1.5, -41.5, 2.5, 1e-7, 0.0999]) refuses(whole, bad, /at most 0 decimal places \(the field's precision\)/);
    for (const bad of ['12', null, true, Number.NaN, Number.POSITIVE_INFINITY]) refuses(whole, bad, /number/);
    refuses(whole, 1e15, /10\^15/);
    assert.equal(readBack(whole, -999_999_999_999_999), -999_999_999_999_999);
    const positive = field('number', { allow_negative: false });
    refuses(positive, -1, /negative/);
    assert.equal(readBack(positive, -0), 0);
    assert.equal(typeOf('number').toApi('12.50', f, ctx), 12.5);
  });

  it('currency and percent store exactly what was sent; percent is a fraction with two more places than it shows', () => {
    assert.equal(write(field('currency'), 19.99), '19.99');
    refuses(field('currency'), 1.234, /at most 2 decimal places/);
    refuses(field('currency', { precision: 0 }), 19.5, /at most 0 decimal places/);
    const pct = field('percent', { precision: 1 });
    assert.equal(readBack(pct, 0.123), 0.123, '12.3 % with one decimal');
    refuses(pct, 0.12345, /at most 3 decimal places: a percent is a fraction/);
    assert.equal(readBack(pct, 1.5), 1.5);
    assert.equal(readBack(field('percent'), 0.55), 0.55);
    refuses(field('percent'), 0.555, /at most 2 decimal places/);
  });

  it('rating counts whole stars from 1 to max; 0 is an empty cell', () => {
    const f = field('rating', { max: 3 });
    assert.equal(readBack(f, 3), 3);
    assert.equal(write(f, 0), null);
    refuses(f, 2.5, /whole number from 0 to 3/);
    refuses(f, 4, /0 to 3/);
    refuses(f, -1, /0 to 3/);
    refuses(f, '2', /number/);
  });

  it('duration takes seconds or "h:mm[:ss[.f]]" and keeps milliseconds whatever its format, which only says how it is written', () => {
    const minutes = field('duration');
    assert.equal(readBack(minutes, 5400), 5400);
    assert.equal(readBack(minutes, '1:30'), 5400);
    assert.equal(readBack(minutes, 89), 89, 'h:mm shows whole minutes, and stores the seconds sent');
    assert.equal(readBack(minutes, 90), 90);
    assert.equal(readBack(minutes, 1.5), 1.5);
    assert.equal(readBack(minutes, -5), -5);
    assert.equal(readBack(minutes, '-0:45'), -2700);
    refuses(minutes, 1.0005, /at most 3 decimal places \(milliseconds\)/);
    const tenths = field('duration', { format: 'h:mm:ss.s' });
    assert.equal(readBack(tenths, '1:30:15.55'.slice(0, 9)), 5415.5);
    assert.equal(readBack(tenths, 1.25), 1.25);
    assert.equal(readBack(tenths, '25:00:00'), 90_000);
    for (const bad of ['1:75', '90', 'soon', '1:30:15.1234', true]) refuses(tenths, bad, /seconds|duration/);
  });
});

describe('field types: checkbox, dates, selects, users, json', () => {
  it('checkbox takes booleans only', () => {
    const f = field('checkbox');
    assert.equal(readBack(f, true), true);
    assert.equal(readBack(f, false), false);
    for (const bad of ['true', 1, 0, 'yes']) refuses(f, bad, /true or false/);
  });

  it('date takes a real calendar day as YYYY-MM-DD and reads it back whatever the driver returns', () => {
    const f = field('date');
    assert.equal(readBack(f, '2024-02-29'), '2024-02-29');
    assert.equal(readBack(f, '0001-01-01'), '0001-01-01');
    for (const bad of ['2023-02-29', '2024-13-01', '2024-2-1', '2024-02-29T10:00:00Z', '0000-01-01', '29/02/2024', 20240229]) refuses(f, bad, /YYYY-MM-DD/);
    // node-postgres returns local midnight, PGlite UTC midnight.
    assert.equal(typeOf('date').toApi(new Date(2024, 1, 29), f, ctx), '2024-02-29');
    assert.equal(typeOf('date').toApi(new Date(Date.UTC(2024, 1, 29)), f, ctx), '2024-02-29');
  });

  it('datetime takes ISO 8601 with an offset (a bare date is midnight in its zone) and reads ISO UTC', () => {
    const paris = field('datetime', { time_zone: 'Europe/Paris' });
    assert.equal(readBack(paris, '2024-05-01T09:30:00+02:00'), '2024-05-01T07:30:00.000Z');
    assert.equal(readBack(paris, '2024-05-01T09:30:00.123456Z'), '2024-05-01T09:30:00.123Z');
    assert.equal(readBack(paris, '2024-05-01T09:30-0130'), '2024-05-01T11:00:00.000Z');
    assert.equal(readBack(paris, '2024-07-01'), '2024-06-30T22:00:00.000Z');
    assert.equal(readBack(paris, '2024-01-01'), '2023-12-31T23:00:00.000Z');
    for (const bad of ['2024-05-01T09:30:00', '2024-05-01 25:00Z', '2024-02-30T00:00:00Z', 'yesterday', 1714555800000]) refuses(paris, bad, /ISO 8601/);
    assert.equal(typeOf('datetime').toApi(new Date('2024-05-01T07:30:00Z'), paris, ctx), '2024-05-01T07:30:00.000Z');
    assert.equal(field('datetime', { time_zone: 'europe/paris' }).options.time_zone, 'Europe/Paris');
    refusesOptions('datetime', { time_zone: 'Mars/Olympus' }, '/options/time_zone');
  });

  it('select options get stable ids, unique labels and colours', () => {
    const f = field('single_select', { choices: [{ label: ' To do ' }, { label: 'Done', color: 'green' }] });
    const [todo, done] = f.options.choices;
    assert.equal(todo.label, 'To do');
    assert.match(todo.id, /^[0-9a-f-]{36}$/);
    assert.equal(todo.color, 'blue');
    assert.equal(done.color, 'green');
    // Renaming keeps the id; a choice sent again without its id keeps it by label; a new one gets a new id.
    const next = field('single_select', { choices: [{ id: todo.id, label: 'Backlog' }, { label: 'Done' }, { label: 'Later' }] }, f.options).options.choices;
    assert.deepEqual(next.slice(0, 2), [{ id: todo.id, label: 'Backlog', color: 'blue' }, { id: done.id, label: 'Done', color: 'green' }]);
    assert.ok(![todo.id, done.id].includes(next[2].id));
    refusesOptions('single_select', { choices: [{ label: 'Done' }, { label: 'done' }] }, '/options/choices/1/label');
    refusesOptions('multi_select', { choices: [{ label: 'A', id: todo.id }, { label: 'B', id: todo.id }] }, '/options/choices/1/id');
    refusesOptions('single_select', { choices: [{ label: '   ' }] }, '/options/choices/0/label');
  });

  it('single_select takes an option id or exact label and reads { id, label, color }', () => {
    const f = field('single_select', { choices: [{ label: 'To do' }, { label: 'Done' }] });
    const [todo, done] = f.options.choices;
    assert.deepEqual(readBack(f, 'Done'), { id: done.id, label: 'Done', color: done.color });
    assert.deepEqual(readBack(f, todo.id.toUpperCase()), { id: todo.id, label: 'To do', color: todo.color });
    for (const bad of ['done', 'Done ', randomUUID(), 3, { id: done.id }]) refuses(f, bad, /option/);
    assert.equal(typeOf('single_select').toApi(randomUUID(), f, ctx), null, 'an option deleted since reads as empty');
    assert.equal(typeOf('single_select').sortExpr!('"c"', f), `array_position(ARRAY['${todo.id}', '${done.id}']::uuid[], "c")`);
  });

  it('multi_select takes ids or labels, drops duplicates and keeps the order of the choices', () => {
    const f = field('multi_select', { choices: [{ label: 'A' }, { label: 'B' }, { label: 'C' }] });
    const [a, b, c] = f.options.choices;
    assert.deepEqual(write(f, ['C', a.id, 'A', c.id]), [a.id, c.id]);
    assert.deepEqual(readBack(f, ['B']), [{ id: b.id, label: 'B', color: b.color }]);
    assert.equal(write(f, []), null);
    refuses(f, 'A', /array/);
    refuses(f, ['A', 'Z'], /"Z"/);
    assert.deepEqual(typeOf('multi_select').toApi([c.id, randomUUID(), a.id], f, ctx), [
      { id: a.id, label: 'A', color: a.color }, { id: c.id, label: 'C', color: c.color },
    ]);
  });

  it('user takes a user id and reads { id, name }; the name is null when the user is unknown', () => {
    const f = field('user');
    assert.deepEqual(readBack(f, ann.toUpperCase()), { id: ann, name: 'Ann' });
    const stranger = randomUUID();
    assert.deepEqual(readBack(f, stranger), { id: stranger, name: null });
    for (const bad of ['Ann', 42, { id: ann }]) refuses(f, bad, /user id/);
    assert.deepEqual(typeOf('created_by').toApi(ann, field('created_by'), ctx), { id: ann, name: 'Ann' });
  });

  it('json takes any JSON value as is, within 100,000 characters', () => {
    const f = field('json');
    for (const v of [{ a: [1, 'two', null], b: { c: true } }, [1, 2], 'text', 0, false]) assert.deepEqual(readBack(f, v), v);
    assert.equal(write(f, { a: 1 }), '{"a":1}');
    refuses(f, { a: 'nul\u0000' }, /NUL/);
    refuses(f, { 'k\u0000': 1 }, /NUL/);
    refuses(f, 'x'.repeat(100_000), /100000/);
  });

  it('system types are read-only and read their system column', () => {
    for (const type of ['autonumber', 'created_at', 'updated_at', 'created_by', 'updated_by']) {
      const f = field(type);
      refuses(f, 1, /read-only/);
      assert.throws(() => typeOf(type).csv.parse('1', f), InvalidCell);
      assert.equal(typeOf(type).column, undefined);
    }
    assert.equal(typeOf('autonumber').toApi(7, field('autonumber'), ctx), 7);
    assert.equal(typeOf('created_at').toApi(new Date('2024-05-01T07:30:00Z'), field('created_at'), ctx), '2024-05-01T07:30:00.000Z');
    assert.equal(fromDb(field('updated_by'), randomUUID()).name, null);
  });
});

describe('field types: CSV', () => {
  const parse = (f: FieldMeta<any>, text: string) => typeOf(f.type).csv.parse(text, f);
  const format = (f: FieldMeta<any>, value: unknown) => typeOf(f.type).csv.format(value, f);
  const parseFails = (f: FieldMeta<any>, text: string) => assert.throws(() => parse(f, text), InvalidCell, `${f.type} parsed ${JSON.stringify(text)}`);

  it('reads checkbox words a spreadsheet uses and writes true/false', () => {
    const f = field('checkbox');
    for (const yes of ['TRUE', 'yes', 'Y', '1', 'x', 'checked', ' on ', '✓']) assert.equal(parse(f, yes), true, yes);
    for (const no of ['false', 'No', '0', '', 'unchecked', 'off']) assert.equal(parse(f, no), false, no);
    parseFails(f, 'maybe');
    assert.equal(format(f, true), 'true');
    assert.equal(format(f, false), 'false');
  });

  it('reads numbers with thousands separators but not decimal commas, and writes them at the field\'s precision', () => {
    const f = field('number', { precision: 2 });
    assert.equal(parse(f, ' 1,234.5 '), 1234.5);
    assert.equal(parse(f, '-.5'), -0.5);
    assert.equal(parse(f, ''), null);
    for (const bad of ['1,5', '1e3', '12abc', '1 234']) parseFails(f, bad);
    assert.equal(format(f, 1234.5), '1234.50');
    assert.equal(format(f, 1e21), `1${'0'.repeat(21)}.00`);
  });

  it('reads and writes currency with its symbol, percentages with %, durations in the field\'s format', () => {
    const eur = field('currency', { symbol: '€', code: 'EUR' });
    assert.equal(parse(eur, '-€1,234.50'), -1234.5);
    assert.equal(parse(eur, '12 EUR'), 12);
    parseFails(eur, '$12');
    assert.equal(format(eur, -1234.5), '-€1234.50');
    const pct = field('percent', { precision: 1 });
    assert.equal(parse(pct, '12.5%'), 0.125);
    assert.equal(parse(pct, '50'), 0.5, 'a bare number is a percentage too');
    assert.equal(format(pct, 0.125), '12.5%');
    assert.equal(format(pct, -0.5), '-50.0%');
    const duration = (format: string) => field('duration', { format });
    assert.equal(parse(duration('h:mm'), '1:30'), 5400);
    assert.equal(parse(duration('h:mm'), '95.5'), 95.5);
    assert.equal(format(duration('h:mm'), 5400), '1:30');
    assert.equal(format(duration('h:mm'), -5430), '-1:31', 'written at the resolution of the format');
    assert.equal(format(duration('h:mm:ss'), 90_061), '25:01:01');
    assert.equal(format(duration('h:mm:ss.ss'), 61.5), '0:01:01.50');
    assert.equal(format(duration('h:mm:ss.sss'), 0.001), '0:00:00.001');
    assert.equal(format(field('rating'), 4), '4');
  });

  it('reads dates and date-times as ISO 8601; a wall time without offset is in the field\'s zone', () => {
    const date = field('date');
    assert.equal(parse(date, ' 2024-02-29 '), '2024-02-29');
    assert.equal(parse(date, '2024-02-29T23:30:00-05:00'), '2024-02-29', 'the date as written');
    parseFails(date, '02/29/2024');
    parseFails(date, '2023-02-29');
    const paris = field('datetime', { time_zone: 'Europe/Paris' });
    assert.equal(parse(paris, '2024-07-01 09:30'), '2024-07-01T07:30:00.000Z');
    assert.equal(parse(paris, '2024-01-01'), '2023-12-31T23:00:00.000Z');
    assert.equal(parse(paris, '2024-07-01T09:30:00Z'), '2024-07-01T09:30:00.000Z');
    parseFails(paris, 'tomorrow');
    assert.equal(format(paris, '2024-07-01T07:30:00.999Z'), '2024-07-01T09:30:00+02:00');
    assert.equal(format(field('datetime', { time_zone: 'America/St_Johns' }), '2024-01-01T12:00:00.000Z'), '2024-01-01T08:30:00-03:30');
    assert.equal(format(field('datetime'), '2024-01-01T12:00:00.000Z'), '2024-01-01T12:00:00Z');
    assert.equal(format(field('created_at', { time_zone: 'Asia/Kolkata' }), '2024-01-01T12:00:00.000Z'), '2024-01-01T17:30:00+05:30');
  });

  it('reads selects by label (several separated by commas), people by id, json as JSON or else text', () => {
    const single = field('single_select', { choices: [{ label: 'Done' }] });
    assert.equal(parse(single, ' Done '), 'Done');
    assert.equal(format(single, { id: 'x', label: 'Done', color: 'blue' }), 'Done');
    const multi = field('multi_select', { choices: [{ label: 'A' }, { label: 'B' }] });
    assert.deepEqual(parse(multi, 'B, A,,'), ['B', 'A']);
    assert.equal(parse(multi, ' , '), null);
    assert.equal(format(multi, [{ label: 'A' }, { label: 'B' }]), 'A, B');
    assert.equal(format(field('user'), { id: ann, name: 'Ann' }), 'Ann');
    assert.equal(format(field('created_by'), { id: ann, name: null }), ann);
    const json = field('json');
    assert.deepEqual(parse(json, '{"a":[1]}'), { a: [1] });
    assert.equal(parse(json, 'plain words'), 'plain words');
    assert.equal(format(json, 'plain words'), 'plain words');
    assert.equal(format(json, { a: [1] }), '{"a":[1]}');
  });

  it('gives back through CSV what it wrote, for every writable type but user (written as a name)', () => {
    const single = field('single_select', { choices: [{ label: 'To do' }, { label: 'Done' }] });
    const multi = field('multi_select', { choices: [{ label: 'A' }, { label: 'B' }] });
    const cases: Array<[FieldMeta<any>, unknown[]]> = [
      [field('text'), ['  spaced  ', 'a, "quoted"\nline']],
      [field('long_text'), ['para 1\n\npara 2']],
      [field('email'), ['ann@example.com']],
      [field('url'), ['https://example.com/?q=1']],
      [field('phone'), ['+1 (555) 010-0199']],
      [field('number', { precision: 3 }), [0, -12.345, 1234567.891]],
      [field('currency', { symbol: 'CHF', code: 'CHF' }), [-0.05, 99.99]],
      [field('percent', { precision: 2 }), [0.1234, -1.5]],
      [field('rating', { max: 10 }), [10, 1]],
      [field('duration', { format: 'h:mm:ss.sss' }), [0.001, -3661.5, 360_000]],
      [field('checkbox'), [true, false]],
      [field('date'), ['2024-02-29', '0042-01-31']],
      [field('datetime', { time_zone: 'America/New_York' }), ['2024-03-10T06:59:59.000Z', '2024-11-03T05:30:00.000Z']],
      [single, ['To do', 'Done']],
      [multi, [['A', 'B'], ['B']]],
      [field('json'), [{ a: 1 }, [true], 'text', 3.5]],
    ];
    for (const [f, values] of cases) {
      for (const value of values) {
        const api = readBack(f, value);
        const text = typeOf(f.type).csv.format(api, f);
        assert.deepEqual(readBack(f, typeOf(f.type).csv.parse(text, f)), api, `${f.type}: ${JSON.stringify(value)} → ${JSON.stringify(text)}`);
      }
    }
  });
});

describe('field types: SQL they emit', () => {
  it('escapes option labels and never emits "?" (knex would read it as a binding)', () => {
    const labels = ["It's", 'Why?', 'back\\slash', '"quoted"'];
    const single = field('single_select', { choices: labels.map((label) => ({ label })) });
    const multi = field('multi_select', { choices: labels.map((label) => ({ label })) });
    const currency = field('currency', { symbol: '?', code: 'XTS' });
    const sources = [single, multi, currency, ...[...TEXT_LIKE, 'number', 'percent', 'rating', 'duration', 'checkbox', 'date', 'datetime', 'json'].map((t) => field(t))];
    const targetOf = (type: string) => ({ single_select: single, multi_select: multi, currency })[type] ?? field(type);
    for (const from of sources) {
      for (const [to, conversion] of Object.entries(typeOf(from.type).convertsTo)) {
        const sql = conversion.sql('"c"', from, targetOf(to));
        assert.ok(!sql.includes('?'), `${from.type} → ${to}: ${sql}`);
      }
      const sort = typeOf(from.type).sortExpr?.('"c"', from);
      if (sort) assert.ok(!sort.includes('?'), sort);
    }
    assert.match(typeOf('single_select').convertsTo.text.sql('"c"', single, field('text')), /U&'Why\\003F'/);
  });
});

describe('field types on a real database', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel();
  });
  after(() => t.stop());

  const single = field('single_select', { choices: [{ label: 'To do' }, { label: 'Done' }, { label: `It's "odd"?` }, { label: 'Blocked' }] });
  // Other ids, some shared labels: select ↔ select conversions map by label when ids differ.
  const multi = field('multi_select', { choices: [{ label: 'Done' }, { label: 'Later' }, { label: 'To do' }, { label: `It's "odd"?` }] });
  const fields: Record<string, FieldMeta<any>> = {
    text: field('text'),
    long_text: field('long_text'),
    email: field('email'),
    url: field('url'),
    phone: field('phone'),
    number: field('number', { precision: 1 }),
    currency: field('currency', { symbol: '€', code: 'EUR' }),
    percent: field('percent', { precision: 1 }),
    rating: field('rating'),
    duration: field('duration', { format: 'h:mm:ss.s' }),
    checkbox: field('checkbox'),
    date: field('date'),
    datetime: field('datetime', { time_zone: 'Europe/Paris' }),
    single_select: single,
    multi_select: multi,
    user: field('user'),
    json: field('json'),
  };
  const samples: Record<string, unknown[]> = {
    text: [
      'hello', '  padded  ', '12.5', '-3', '1,234.5', '.5', '1,5', 'abc', '50%', '€12.50', '12 EUR', '7.5e3',
      '2024-02-29', '2023-02-29', '2024-02-29T10:30:00Z', '2024-02-29 10:30', '1:30', '1:30:15.5', '1:75',
      'yes', 'No', 'Done', 'To do, Done, Nope', `It's "odd"?`, single.options.choices[1].id.toUpperCase(),
      'ann@example.com', 'https://example.com/x?y=1', '+1 (555) 010-0199', '{"a": 1}', 'x'.repeat(10_000),
    ],
    long_text: ['line 1\nline 2', 'z'.repeat(10_001), '42'],
    email: ['Bob@Example.com', 'ann@c.de'],
    url: ['https://example.com/a?b=c#d', 'http://localhost:3000'],
    phone: ['+33 1 23 45 67 89', '(555) 010-0199'],
    number: [0, 12.3, -3, 1234567.8, 0.4, 4.5],
    currency: [1234.5, -0.5, 0, 3],
    percent: [0.125, -0.5, 1, 0.05],
    rating: [1, 3, 5],
    duration: [0, 5415.5, -90, 3600, 2.5],
    checkbox: [true, false],
    date: ['2024-02-29', '0999-12-31', '2024-07-01'],
    datetime: ['2024-02-29T10:30:00.123Z', '2024-07-01T00:00:00+02:00', '1999-12-31T23:59:59Z'],
    single_select: ['To do', 'Done', `It's "odd"?`, 'Blocked'],
    multi_select: [['Done', 'To do'], ['Later'], [`It's "odd"?`, 'Done']],
    user: [ann, randomUUID()],
    json: [{ a: 1, b: [true, null] }, 'just text', 42, [1, 'two']],
  };
  const rowCount = Math.max(...Object.values(samples).map((s) => s.length));

  /** The API value a cell would read after writing `value`, or null when the type refuses it. */
  function cell(f: FieldMeta<any>, value: unknown): unknown {
    if (value === null) return null;
    try {
      return readBack(f, value);
    } catch (err) {
      if (err instanceof InvalidCell) return null;
      throw err;
    }
  }

  /** What a conversion stores in a numeric cell: the value rounded half away from zero to the target's resolution (a write would refuse it). */
  function converted(to: FieldMeta<any>, value: unknown): unknown {
    if (!NUMERIC.includes(to.type) || typeof value !== 'number') return cell(to, value);
    return cell(to, Number(roundDecimal(toPlainDecimal(value), placesOf(to))));
  }

  /** What converting one cell must give, computed from the types' JS (CSV parse/format, fromApi). */
  function expected(from: FieldMeta<any>, to: FieldMeta<any>, value: unknown): unknown {
    const [S, T] = [from.type, to.type];
    if (TEXT_LIKE.includes(S)) {
      const text = value as string;
      if (T === 'json') return text;
      if (T === 'checkbox') {
        try {
          return typeOf(T).csv.parse(text, to);
        } catch {
          return false;
        }
      }
      if (T === 'multi_select') {
        // Converting keeps the labels (or ids) it recognises and drops the rest; CSV import would refuse the cell.
        const known = (token: string) => to.options.choices.some((c: { id: string; label: string }) => c.label === token || c.id === token.toLowerCase());
        return cell(to, text.split(',').map((token) => token.trim()).filter(known));
      }
      try {
        return converted(to, typeOf(T).csv.parse(text, to));
      } catch (err) {
        if (err instanceof InvalidCell) return null;
        throw err;
      }
    }
    if (TEXT_LIKE.includes(T)) return cell(to, typeOf(S).csv.format(value, from));
    if (NUMERIC.includes(S) && NUMERIC.includes(T)) return converted(to, value);
    if (S === 'checkbox') return converted(to, value ? 1 : 0);
    if (T === 'checkbox') return value !== 0;
    if (S === 'date') return cell(to, value); // a bare date is midnight in the datetime's zone
    if (S === 'datetime') return new Intl.DateTimeFormat('en-CA', { timeZone: from.options.time_zone }).format(new Date(value as string));
    if (S === 'single_select') {
      const label = (value as { label: string }).label;
      return cell(to, to.options.choices.some((c: { label: string }) => c.label === label) ? [label] : []);
    }
    if (S === 'multi_select') {
      const chosen = new Set((value as Array<{ label: string }>).map((c) => c.label));
      const first = from.options.choices.find((c: { label: string }) => chosen.has(c.label) && to.options.choices.some((d: { label: string }) => d.label === c.label));
      return first ? cell(to, first.label) : null;
    }
    throw new Error(`no model for ${S} → ${T}`);
  }

  async function rows(table: string, column: string): Promise<Map<number, unknown>> {
    const result = await t.db.raw(`SELECT n, ${column} AS v FROM ?? ORDER BY n`, [table]);
    return new Map(result.rows.map((r: { n: number; v: unknown }) => [r.n, r.v]));
  }

  it('creates a column of every type, stores what fromApi gives and reads it back through toApi', async () => {
    const columns = Object.entries(fields).map(([name, f]) => `"${name}" ${typeOf(f.type).column!(f.options)}`);
    await t.db.raw(`CREATE TABLE ft_samples (n integer PRIMARY KEY, ${columns.join(', ')})`);
    const inserts = Array.from({ length: rowCount }, (_, n) =>
      Object.fromEntries([['n', n], ...Object.entries(fields).map(([name, f]) => [name, n < samples[name].length ? write(f, samples[name][n]) : null])]),
    );
    await t.db('ft_samples').insert(inserts);

    for (const [name, f] of Object.entries(fields)) {
      const stored = await rows('ft_samples', `"${name}"`);
      samples[name].forEach((value, n) => {
        const actual = fromDb(f, stored.get(n));
        assert.deepEqual(actual, readBack(f, value), `${name} #${n} ${JSON.stringify(value)}`);
      });
    }
    const back = await t.db('ft_samples').where('n', 1).first();
    assert.equal(typeOf('number').toApi(back.number, fields.number, ctx), 12.3);
    assert.equal(typeOf('date').toApi(back.date, fields.date, ctx), '0999-12-31');
    const first = await t.db('ft_samples').where('n', 0).first();
    assert.equal(typeOf('datetime').toApi(first.datetime, fields.datetime, ctx), '2024-02-29T10:30:00.123Z');
    assert.deepEqual(fromDb(multi, first.multi_select).map((c: { label: string }) => c.label), ['Done', 'To do']);
    assert.deepEqual(typeOf('user').toApi(first.user, fields.user, ctx), { id: ann, name: 'Ann' });
    assert.deepEqual(first.json, { a: 1, b: [true, null] });
  });

  it('runs every conversion as ALTER COLUMN … USING and keeps exactly what the types\' JS would keep', async () => {
    let checked = 0;
    for (const [name, from] of Object.entries(fields)) {
      for (const [target, conversion] of Object.entries(typeOf(from.type).convertsTo)) {
        const to = fields[target];
        await t.db.raw('DROP TABLE IF EXISTS ft_convert');
        await t.db.raw(`CREATE TABLE ft_convert AS SELECT n, "${name}" AS c FROM ft_samples WHERE "${name}" IS NOT NULL`);
        // With a binding in the statement, as the records engine runs it: a stray "?" would break it.
        await t.db.raw(`ALTER TABLE ?? ALTER COLUMN c TYPE ${typeOf(target).column!(to.options)} USING ${conversion.sql('"c"', from, to)}`, ['ft_convert']);
        const converted = await rows('ft_convert', 'c');
        samples[name].forEach((value, n) => {
          const before = readBack(from, value);
          if (before === null) return;
          let actual = fromDb(to, converted.get(n));
          let want = expected(from, to, before);
          if (name === 'json' && typeof actual === 'string' && typeof want === 'string') [actual, want] = [jsonish(actual), jsonish(want)];
          assert.deepEqual(actual, want, `${name} → ${target}: ${JSON.stringify(value)}`);
          checked++;
        });
      }
    }
    assert.ok(checked > 300, `only ${checked} cells checked`);

    // A few conversions spelled out, as a user sees them.
    const convert = async (name: string, target: string) => {
      await t.db.raw('DROP TABLE IF EXISTS ft_convert');
      await t.db.raw(`CREATE TABLE ft_convert AS SELECT n, "${name}" AS c FROM ft_samples`);
      await t.db.raw(`ALTER TABLE ft_convert ALTER COLUMN c TYPE ${typeOf(target).column!(fields[target].options)} USING ${typeOf(name).convertsTo[target].sql('"c"', fields[name], fields[target])}`);
      const out = await rows('ft_convert', 'c');
      return (n: number) => fromDb(fields[target], out.get(n));
    };
    const toNumber = await convert('text', 'number');
    assert.deepEqual([2, 3, 4, 6, 7].map(toNumber), [12.5, -3, 1234.5, null, null]);
    const toDate = await convert('text', 'date');
    assert.deepEqual([12, 13, 14].map(toDate), ['2024-02-29', null, '2024-02-29']);
    const toText = await convert('single_select', 'text');
    assert.deepEqual([0, 2].map(toText), ['To do', `It's "odd"?`]);
    const toMulti = await convert('single_select', 'multi_select');
    assert.equal(toMulti(3), null, '"Blocked" is not a choice of the multi select: lost');
    const longToText = await convert('long_text', 'text');
    assert.equal(longToText(1), null, 'longer than text allows: lost, not cut');
    const durationText = await convert('duration', 'text');
    assert.deepEqual([1, 2].map(durationText), ['1:30:15.5', '-0:01:30.0']);
  });

  it('sorts by every type\'s sort expression', async () => {
    const order = async (name: string) => {
      const expr = typeOf(fields[name].type).sortExpr?.(`"${name}"`, fields[name]) ?? `"${name}"`;
      const result = await t.db.raw(`SELECT n FROM ft_samples WHERE "${name}" IS NOT NULL ORDER BY ${expr} NULLS LAST, n`);
      return result.rows.map((r: { n: number }) => samples[name][r.n]);
    };
    for (const name of Object.keys(fields)) await order(name);
    assert.deepEqual(await order('single_select'), ['To do', 'Done', `It's "odd"?`, 'Blocked']);
    assert.deepEqual(await order('multi_select'), [['Done', 'To do'], [`It's "odd"?`, 'Done'], ['Later']]);
    assert.deepEqual(await order('email'), ['ann@c.de', 'Bob@Example.com'], 'case-insensitive');
    assert.deepEqual(await order('number'), [-3, 0, 0.4, 4.5, 12.3, 1234567.8]);
    await t.db('users').insert([
      { id: ann, email: `${ann}@example.com`, name: 'zed' },
      { id: samples.user[1], email: `${samples.user[1]}@example.com`, name: 'Amy' },
    ]);
    assert.deepEqual(await order('user'), [samples.user[1], ann], 'by name, not by id');
  });
});

/** JSON text compared by value: PostgreSQL writes `{"a": 1}` where JSON.stringify writes `{"a":1}`. */
function jsonish(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
