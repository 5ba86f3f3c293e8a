import { generateKeyBetween } from 'fractional-indexing';
import type { Database, Db } from '../../core/db.ts';
import type { BenchDatabase } from './setup.ts';
import { NOUNS, TITLE_WORDS } from './words.ts';

const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** `d` + four base-62 digits is a fractional-indexing integer key; 62^4 of them. */
const MAX_ROWS = 62 ** 4;
const CHUNK = 100_000;

/** The `(field, id)` indexes ARCHITECTURE.md plans for fields views filter or sort on; the engine does not create them yet. */
export const BENCH_INDEXED = ['status', 'priority', 'amount'] as const;

export interface Seeded {
  /** Up to 2,000 ids spread over the table, for gets and patches. */
  ids: string[];
  /** A title word in about 1 % of the titles, and how many titles hold it. */
  q: string;
  qMatches: number;
  seconds: number;
}

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;
const array = (values: string[], type: string) => `ARRAY[${values.map(literal).join(', ')}]::${type}[]`;
/** A deterministic pseudo-random non-negative integer per row `g` and stream `k` (streams shifted by the load's seed). */
let seedShift = 0;
const h = (k: number) => `(hashint8extended(g, ${k + seedShift * 1000}) & 2147483647)`;
const digit = (divisor: number) => `substr(${literal(DIGITS)}, ((g / ${divisor}) % 62)::int + 1, 1)`;

/** One INSERT … SELECT for rows `from`..`to` (0-based): positions in row order, values of every type's storage. */
function insertSql(bench: BenchDatabase, users: string[], from: number, to: number): string {
  const c = bench.columns;
  const cells: Array<[string, string]> = [
    ['position', `'d' || ${digit(62 ** 3)} || ${digit(62 ** 2)} || ${digit(62)} || ${digit(1)}`],
    ['created_by', `${literal(bench.admin.id)}::uuid`],
    ['updated_by', `${literal(bench.admin.id)}::uuid`],
    [c.title, `initcap((${array(TITLE_WORDS, 'text')})[${h(1)} % ${TITLE_WORDS.length} + 1]) || ' ' || (${array(NOUNS, 'text')})[${h(2)} % ${NOUNS.length} + 1] || ' ' || (g + 1)`],
    [c.status, `(${array(bench.statusIds, 'uuid')})[${h(3)} % ${bench.statusIds.length} + 1]`],
    [c.priority, `(${h(4)} % 5 + 1)::numeric`],
    [c.amount, `CASE WHEN ${h(5)} % 50 = 0 THEN NULL ELSE round((${h(6)} % 1000000)::numeric / 100, 2) END`],
    [c.due, `CASE WHEN ${h(7)} % 20 = 0 THEN NULL ELSE date '2020-01-01' + (${h(8)} % 2200)::int END`],
    [c.done, `${h(9)} % 3 = 0`],
    [c.owner, `CASE WHEN ${h(10)} % 10 = 0 THEN NULL ELSE (${array(users, 'uuid')})[${h(11)} % ${users.length} + 1] END`],
    [c.email, `'person' || (${h(12)} % 5000) || '@example.com'`],
    [c.rating, `NULLIF(${h(13)} % 6, 0)::smallint`],
    [c.notes, `CASE WHEN ${h(14)} % 3 = 0 THEN NULL ELSE 'Follow up with the ' || (${array(NOUNS, 'text')})[${h(15)} % ${NOUNS.length} + 1] || ' owner about item ' || (g + 1) || '.' END`],
  ];
  // `number` is left to the identity column; ORDER BY g hands it out in position order.
  return `INSERT INTO "${bench.table}" (${cells.map(([col]) => `"${col}"`).join(', ')})
    SELECT ${cells.map(([, expr]) => expr).join(',\n      ')}
    FROM generate_series(${from}::bigint, ${to}::bigint) AS g ORDER BY g`;
}

/** The table's indexes other than its constraints' (primary key, unique number): dropped while filling, then rebuilt as they were. */
async function plainIndexes(trx: Db, table: string): Promise<Array<{ name: string; def: string }>> {
  const { rows } = await trx.raw(
    `SELECT i.relname AS name, pg_get_indexdef(i.oid) AS def
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
      WHERE x.indrelid = ?::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.oid)`,
    [table],
  );
  return rows;
}

/** A load other than the default: other pseudo-random values (`seed`), and no VACUUM ANALYZE after it (`analyze: false`). */
export interface SeedOptions {
  seed?: number;
  analyze?: boolean;
}

/**
 * Fills the records table of `bench` with `count` rows by SQL, with the indexes the engine made
 * (rebuilt after the fill) and the bench's `(field, id)` indexes, then VACUUM ANALYZE. Checks
 * that the positions are valid fractional-indexing keys, increasing with `number`.
 */
export async function seedRecords(db: Database, bench: BenchDatabase, count: number, log: (line: string) => void, opts: SeedOptions = {}): Promise<Seeded> {
  if (count > MAX_ROWS) throw new Error(`at most ${MAX_ROWS} records`);
  seedShift = opts.seed ?? 0;
  const started = Date.now();
  const users = [bench.admin.id, bench.editor.id];
  await db.knex.transaction(async (trx) => {
    if (db.kind === 'postgres') await trx.raw("SET LOCAL maintenance_work_mem = '512MB'");
    const indexes = await plainIndexes(trx, bench.table);
    for (const index of indexes) await trx.raw('DROP INDEX ??', [index.name]);
    for (let from = 0; from < count; from += CHUNK) {
      await trx.raw(insertSql(bench, users, from, Math.min(from + CHUNK, count) - 1));
      log(`  seeding: ${Math.min(from + CHUNK, count).toLocaleString('en-US')} rows, ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    for (const index of indexes) await trx.raw(index.def);
    for (const key of BENCH_INDEXED) {
      await trx.raw('CREATE INDEX ?? ON ?? (??, id) WHERE deleted_at IS NULL', [`${bench.table}_bench_${key}`, bench.table, bench.columns[key]]);
    }
  });
  log(`  seeding: indexes built, ${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (opts.analyze !== false) await db.knex.raw('VACUUM ANALYZE ??', [bench.table]);
  await checkPositions(db.knex, bench.table, count);
  const step = Math.max(1, Math.floor(count / 2000));
  const ids = (await db.knex(bench.table).whereRaw('number % ? = 0', [step]).orderBy('number').limit(2000).pluck('id')) as string[];
  const q = TITLE_WORDS[0];
  const { rows } = await db.knex.raw(`SELECT count(*)::int AS n FROM ?? WHERE ?? ILIKE ?`, [bench.table, bench.columns.title, `%${q}%`]);
  return { ids, q, qMatches: rows[0].n, seconds: (Date.now() - started) / 1000 };
}

/** Every key has the `d` + 4 digits form, they increase with `number`, and the library accepts samples of them. */
async function checkPositions(db: Db, table: string, count: number): Promise<void> {
  const { rows } = await db.raw(
    `SELECT count(*)::int AS n,
            count(*) FILTER (WHERE position !~ '^d[0-9A-Za-z]{4}$')::int AS malformed,
            count(*) FILTER (WHERE position <= previous)::int AS unordered
       FROM (SELECT position, lag(position) OVER (ORDER BY number) AS previous FROM ??) AS p`,
    [table],
  );
  const { n, malformed, unordered } = rows[0];
  if (n !== count || malformed > 0 || unordered > 0) throw new Error(`seeded positions: ${n} rows, ${malformed} malformed, ${unordered} out of order`);
  const sample = (await db(table).whereRaw('number % ? in (0, 1)', [Math.max(2, Math.floor(count / 50))]).orWhere('number', count).orderBy('number').pluck('position')) as string[];
  for (let i = 1; i < sample.length; i++) generateKeyBetween(sample[i - 1], sample[i]);
  generateKeyBetween(sample[sample.length - 1], null);
}
