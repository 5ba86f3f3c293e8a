import assert from 'node:assert/strict';
import { compile } from '../../../core/schema.ts';
import { BUILTIN_FIELD_TYPES } from '../../../plugins/databases/field-types/builtins.ts';
import { postgresTableKind } from '../../../plugins/integration-postgres/table-kind.ts';
import type { TableConfig } from '../../../plugins/integration-postgres/schemas.ts';
import { CursorExpired, SourceRefused, SourceUnavailable, type SourcePage, type SourceProperty } from '../../../plugins/sources/public.ts';
import { inputFor, pagesOf, scratchSchema, type Scratch } from './fixture.ts';

const ROWS = 2500;
const kind = postgresTableKind({ allowPrivateNetworks: false });

/** The API value `value` becomes through its field type's `fromApi`: throws as a write through the API would. */
function acceptedBy(property: SourceProperty, value: unknown): unknown {
  const type = BUILTIN_FIELD_TYPES.find((t) => t.type === property.type);
  assert.ok(type, `no field type ${property.type}`);
  return type.fromApi(value, { id: property.key, api_name: property.key, type: property.type, options: property.options ?? {} });
}

const keysOf = (pages: SourcePage[]) => pages.flatMap((page) => page.rows.map((row) => row.key));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

async function refusal(promise: Promise<unknown>): Promise<SourceRefused> {
  const err = await promise.then(() => assert.fail('expected a refusal'), (e: unknown) => e);
  assert.ok(err instanceof SourceRefused, `expected SourceRefused, got ${String(err)}`);
  return err;
}

async function unavailability(promise: Promise<unknown>): Promise<SourceUnavailable> {
  const err = await promise.then(() => assert.fail('expected SourceUnavailable'), (e: unknown) => e);
  assert.ok(err instanceof SourceUnavailable, `expected SourceUnavailable, got ${String(err)}`);
  return err;
}

describe('integration-postgres: the postgres.table source kind', function () {
  let db: Scratch;
  let items: TableConfig;
  let count: () => Promise<number>;

  before(async () => {
    db = await scratchSchema();
    const t = `${db.schema}.items`;
    await db.admin.query(`
      CREATE TABLE ${t} (
        id integer PRIMARY KEY, big bigint, amount numeric(12,2), ratio double precision, huge numeric, name text,
        code varchar(20), flag boolean, day date, at timestamptz, local_at timestamp, doc jsonb, tags text[], uid uuid,
        updated_at timestamptz NOT NULL
      )`);
    // Row g was updated g seconds into 2024: the greatest updated_at of a page is its last row's.
    await db.admin.query(`INSERT INTO ${t} (id, name, flag, updated_at)
      SELECT g, 'row ' || g, g % 2 = 0, '2024-01-01 00:00:00+00'::timestamptz + g * interval '1 second' FROM generate_series(1, ${ROWS}) g`);
    await db.admin.query(`UPDATE ${t} SET big = 9007199254740993, amount = 1234.56, ratio = 0.1, huge = 12345678901234567890.123456789,
      name = 'Zoë', code = 'A-1', day = '2024-02-29', at = '2024-05-01 09:30:00.123456+02', local_at = '2024-05-01 09:30:00.5',
      doc = '{"a": [1, "x"], "b": null}', tags = '{a,"b c"}', uid = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' WHERE id = 1`);
    await db.admin.query(`CREATE TABLE ${db.schema}.loose (k integer, v text, j json)`);
    await db.admin.query(`INSERT INTO ${db.schema}.loose VALUES (2, 'two', '{}'), (NULL, 'no key', '{}'), (1, 'one', '[]')`);
    items = { schema: db.schema, table: 'items', key_column: 'id', updated_at_column: 'updated_at' };
    count = async () => Number((await db.admin.query(`SELECT count(*) AS n FROM ${t}`)).rows[0].n);
  });
  after(() => db.drop());

  it('offers one property per column, typed from the column, the key unique; every value its field type takes', async () => {
    const properties = await kind.properties(inputFor(items));
    assert.deepEqual(properties, [
      { key: 'id', name: 'id', type: 'number', options: { precision: 0 }, unique: true },
      { key: 'big', name: 'big', type: 'text' },
      { key: 'amount', name: 'amount', type: 'number', options: { precision: 2 } },
      { key: 'ratio', name: 'ratio', type: 'number', options: { precision: 10 } },
      { key: 'huge', name: 'huge', type: 'text' },
      { key: 'name', name: 'name', type: 'text' },
      { key: 'code', name: 'code', type: 'text' },
      { key: 'flag', name: 'flag', type: 'checkbox' },
      { key: 'day', name: 'day', type: 'date' },
      { key: 'at', name: 'at', type: 'datetime' },
      { key: 'local_at', name: 'local_at', type: 'datetime' },
      { key: 'doc', name: 'doc', type: 'json' },
      { key: 'tags', name: 'tags', type: 'long_text' },
      { key: 'uid', name: 'uid', type: 'text' },
      { key: 'updated_at', name: 'updated_at', type: 'datetime' },
    ]);
    for (const p of properties) {
      const type = BUILTIN_FIELD_TYPES.find((t) => t.type === p.type)!;
      assert.ok(compile(type.options)(structuredClone(p.options ?? {})), `${p.key}'s options fit ${p.type}`);
    }

    const [first] = await pagesOf(kind, inputFor(items));
    const row = first.rows[0];
    assert.equal(row.key, '1');
    assert.deepEqual(row.values, {
      id: 1,
      big: '9007199254740993', // 2^53 + 1: a JSON number would have made it ...992
      amount: 1234.56,
      ratio: 0.1,
      huge: '12345678901234567890.123456789',
      name: 'Zoë',
      code: 'A-1',
      flag: false,
      day: '2024-02-29',
      at: '2024-05-01T07:30:00.123456Z',
      local_at: '2024-05-01T09:30:00.500000Z',
      doc: { a: [1, 'x'], b: null },
      tags: '{a,"b c"}',
      uid: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      updated_at: '2024-01-01T00:00:01.000000Z',
    });
    for (const p of properties) assert.doesNotThrow(() => acceptedBy(p, row.values[p.key]), p.key);
    assert.equal(acceptedBy(properties[2], row.values.amount), '1234.56');
    assert.equal(acceptedBy(properties[9], row.values.at), '2024-05-01T07:30:00.123Z');
    assert.deepEqual(first.rows[1].values.big, null);
    assert.equal(first.rows[1].values.flag, true);
  });

  it('reads every row once, in pages of 1,000 by key, each page with the cursor to go on from', async () => {
    const pages = await pagesOf(kind, inputFor(items));
    assert.deepEqual(pages.map((p) => p.rows.length), [1000, 1000, 500]);
    assert.deepEqual(pages.map((p) => p.snapshot), [true, true, true]);
    assert.deepEqual(pages.map((p) => p.cursor), [
      { after_key: '1000', max_updated_at: '2024-01-01 00:16:40+00' },
      { after_key: '2000', max_updated_at: '2024-01-01 00:33:20+00' },
      { updated_since: '2024-01-01 00:41:40+00' },
    ]);
    assert.deepEqual(keysOf(pages), range(1, ROWS));
  });

  it('goes on from a page\'s cursor with exactly the rows after it', async () => {
    const [first] = await pagesOf(kind, inputFor(items));
    const rest = await pagesOf(kind, inputFor(items, { cursor: first.cursor }));
    assert.deepEqual(rest.map((p) => p.rows.length), [1000, 500]);
    assert.deepEqual(keysOf(rest), range(1001, ROWS));
    assert.deepEqual(rest.at(-1)!.cursor, { updated_since: '2024-01-01 00:41:40+00' });
    assert.deepEqual(rest.map((p) => p.snapshot), [true, true]);
  });

  it('reads only the rows changed since, by (updated_at, key), however many share one updated_at', async () => {
    const since = { updated_since: '2024-01-01 00:41:40+00' };
    const none = await pagesOf(kind, inputFor(items, { cursor: since }));
    assert.deepEqual(none, [{ rows: [], cursor: since, snapshot: false }]);

    // 1,200 rows changed by one statement share their updated_at: pages split them by key.
    await db.admin.query(`UPDATE ${db.schema}.items SET name = 'changed', updated_at = '2024-06-01 12:00:00.0001+00' WHERE id BETWEEN 101 AND 1300`);
    const changed = await pagesOf(kind, inputFor(items, { cursor: since }));
    assert.deepEqual(changed.map((p) => p.rows.length), [1000, 200]);
    assert.deepEqual(changed.map((p) => p.snapshot), [false, false]);
    assert.deepEqual(keysOf(changed), range(101, 1300));
    assert.ok(changed.every((p) => p.rows.every((r) => r.values.name === 'changed' && r.values.updated_at === '2024-06-01T12:00:00.000100Z')));
    assert.deepEqual(changed.map((p) => p.cursor), [
      { updated_since: since.updated_since, after: ['2024-06-01 12:00:00.0001+00', '1100'] },
      { updated_since: since.updated_since, after: ['2024-06-01 12:00:00.0001+00', '1300'] },
    ]);

    const resumed = await pagesOf(kind, inputFor(items, { cursor: changed[0].cursor }));
    assert.deepEqual(keysOf(resumed), range(1101, 1300));
    const after = await pagesOf(kind, inputFor(items, { cursor: changed[1].cursor }));
    assert.deepEqual(keysOf(after), []);
  });

  it('keeps updated_at to the microsecond: two changes within one millisecond are both read, and told apart', async () => {
    const since = { updated_since: '2024-06-01 12:00:00.0001+00' };
    await db.admin.query(`UPDATE ${db.schema}.items SET updated_at = '2024-07-01 00:00:00.000001+00' WHERE id = 6`);
    await db.admin.query(`UPDATE ${db.schema}.items SET updated_at = '2024-07-01 00:00:00.000002+00' WHERE id = 5`);
    const [both] = await pagesOf(kind, inputFor(items, { cursor: since }));
    assert.deepEqual(both.rows.map((r) => [r.key, r.values.updated_at]), [
      ['6', '2024-07-01T00:00:00.000001Z'],
      ['5', '2024-07-01T00:00:00.000002Z'],
    ]);
    assert.deepEqual(both.cursor, { ...since, after: ['2024-07-01 00:00:00.000002+00', '5'] });
    // Rounded to the millisecond, this cursor would read both rows again, or neither.
    const [later] = await pagesOf(kind, inputFor(items, { cursor: { updated_since: '2024-07-01 00:00:00.000001+00' } }));
    assert.deepEqual(keysOf([later]), ['5']);
  });

  it('syncs a query as a subquery, skipping rows without a key, and only the columns asked for', async () => {
    const query: TableConfig = {
      query: `SELECT id, name, amount * 2 AS doubled FROM ${db.schema}.items WHERE id <= 1500 -- a comment ends the query`,
      key_column: 'id',
    };
    await kind.check!(inputFor(query));
    assert.deepEqual(await kind.properties(inputFor(query)), [
      { key: 'id', name: 'id', type: 'number', options: { precision: 0 }, unique: true },
      { key: 'name', name: 'name', type: 'text' },
      { key: 'doubled', name: 'doubled', type: 'text' },
    ]);
    const pages = await pagesOf(kind, inputFor(query));
    assert.deepEqual(pages.map((p) => p.rows.length), [1000, 500]);
    assert.deepEqual(pages.map((p) => p.cursor), [{ after_key: '1000' }, null]);
    assert.deepEqual(pages[0].rows[0].values, { id: 1, name: 'Zoë', doubled: '2469.12' });

    const loose: TableConfig = { query: `select k, v from ${db.schema}.loose`, key_column: 'k' };
    const [only] = await pagesOf(kind, inputFor(loose));
    assert.deepEqual(only.rows, [
      { key: '1', values: { k: 1, v: 'one' } },
      { key: '2', values: { k: 2, v: 'two' } },
    ]);

    const some: TableConfig = { schema: db.schema, table: 'items', key_column: 'id', columns: ['name', 'flag'] };
    assert.deepEqual((await kind.properties(inputFor(some))).map((p) => p.key), ['id', 'name', 'flag']);
  });

  it('refuses a connection to 127.0.0.1 unless the plugin or the sources plugin allows private networks', async () => {
    const guarded = inputFor(items, { allowPrivateNetworks: false });
    const refused = await unavailability(kind.properties(guarded));
    assert.match(refused.message, /^127\.0\.0\.1 is a loopback, private, link-local/);
    await unavailability(kind.check!(guarded));
    await unavailability(pagesOf(kind, guarded));
    const byOption = postgresTableKind({ allowPrivateNetworks: true });
    assert.equal((await byOption.properties(guarded)).length, 15);
  });

  it('refuses what the config gets wrong, pointing at it', async () => {
    const cases: Array<[TableConfig, string, RegExp]> = [
      [{ schema: db.schema, table: 'nope', key_column: 'id' }, '/config/table', /^The table pgsrc_\w+\.nope does not exist \(or the connection's user cannot see it\)\.$/],
      [{ key_column: 'id' }, '/config/table', /Give the table to sync, or a query/],
      [{ ...items, query: 'select 1 as id' }, '/config/query', /not both/],
      [{ ...items, key_column: 'ident' }, '/config/key_column', /^The table pgsrc_\w+\.items has no column "ident"; its columns: "id", "big", "amount"/],
      [{ ...items, updated_at_column: 'name' }, '/config/updated_at_column', /"name" is of type text; an updated-at column must be/],
      [{ ...items, columns: ['name', 'nickname'] }, '/config/columns/1', /has no column "nickname"/],
      [{ schema: db.schema, table: 'loose', key_column: 'j' }, '/config/key_column', /cannot read the source in "j" order/],
      [{ query: 'select 1 as a, 2 as a', key_column: 'a' }, '/config/query', /two columns named "a"/],
      [{ query: 'select nonsense from nowhere', key_column: 'a' }, '/config/query', /PostgreSQL refused the query: relation "nowhere" does not exist/],
    ];
    for (const [config, pointer, why] of cases) {
      const err = await refusal(kind.check!(inputFor(config)));
      assert.equal(err.pointer, pointer, JSON.stringify(config));
      assert.match(err.detail, why, JSON.stringify(config));
    }
    const gone = await unavailability(pagesOf(kind, inputFor({ schema: db.schema, table: 'nope', key_column: 'id' })));
    assert.match(gone.message, /^The table pgsrc_\w+\.nope does not exist/);
  });

  it('starts again from nothing when the cursor is not one it can go on from', async () => {
    for (const cursor of [{ after_key: 'not a number' }, { what: 1 }, 'text', { updated_since: 'not a time' }]) {
      const err = await pagesOf(kind, inputFor(items, { cursor })).then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof CursorExpired, `${JSON.stringify(cursor)}: ${String(err)}`);
    }
    const withoutUpdatedAt: TableConfig = { schema: db.schema, table: 'items', key_column: 'id' };
    const err = await pagesOf(kind, inputFor(withoutUpdatedAt, { cursor: { updated_since: '2024-01-01 00:00:00+00' } })).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof CursorExpired);
    // Without an updated-at column a full read ends with no cursor: the next run reads everything again.
    assert.equal((await pagesOf(kind, inputFor(withoutUpdatedAt))).at(-1)!.cursor, null);
  });

  it('stops reading when the run is aborted', async () => {
    const controller = new AbortController();
    const pages = kind.read(inputFor(items, { signal: controller.signal }))[Symbol.asyncIterator]();
    const first = await pages.next();
    assert.equal(first.done, false);
    controller.abort();
    const err = await pages.next().then(() => undefined, (e: unknown) => e);
    assert.equal((err as Error).name, 'AbortError');
  });

  it('cannot write: a second statement is refused, and a data-modifying query fails in the read-only session, changing nothing', async () => {
    const before = await count();
    const twice = await refusal(kind.check!(inputFor({ query: `select 1 as id; delete from ${db.schema}.items`, key_column: 'id' })));
    assert.equal(twice.pointer, '/config/query');
    assert.match(twice.detail, /semicolon/);

    const deleting: TableConfig = { query: `WITH d AS (DELETE FROM ${db.schema}.items RETURNING id) SELECT id FROM d`, key_column: 'id' };
    await refusal(kind.check!(inputFor(deleting)));
    await unavailability(pagesOf(kind, inputFor(deleting)));
    const nextval: TableConfig = { query: `SELECT id, nextval('${db.schema}.counter') AS n FROM ${db.schema}.items`, key_column: 'id' };
    await db.admin.query(`CREATE SEQUENCE ${db.schema}.counter`);
    const readOnly = await unavailability(pagesOf(kind, inputFor(nextval)));
    assert.match(readOnly.message, /cannot execute nextval\(\) in a read-only transaction/);
    assert.equal(await count(), before);
    assert.equal((await db.admin.query(`SELECT last_value, is_called FROM ${db.schema}.counter`)).rows[0].is_called, false);
  });
});
