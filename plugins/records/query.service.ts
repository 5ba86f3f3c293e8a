import type { Knex } from 'knex';
import type { Authz } from '../../core/authz.ts';
import { countRows, type Database as Storage, type Db } from '../../core/db.ts';
import { invalidField, validationFailed, type ErrorDetail } from '../../core/errors.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { filterFieldRefs, type SqlCondition } from '../databases/public.ts';
import { acrossOf, compileFilter, type LinkedTables } from './filter-compiler.ts';
import type { RecordQueryHooks, RecordViewHooks } from './hooks.ts';
import { decodeCursor, encodeCursor, queryFingerprint } from '../../core/cursor.ts';
import { afterCursor, nullableBound, orderBy } from './query-cursor.ts';
import { computedReads } from './computed-reads.ts';
import type { LiveField } from './live-fields.ts';
import { TEXT_DATES, type RecordRow } from './record-row.ts';
import type { RecordTable } from './record-table.ts';
import type { RecordService } from './records.service.ts';
import type { QueryPage, RecordQuery } from './schemas.ts';
import { ID_KEY, MANUAL_KEYS, sortKeys, type SortInput, type SortKey } from './sort-keys.ts';

/** How many records in manual order a search walks before it looks the text up in the title's index instead. */
const SEARCH_WINDOW = 2000;
/**
 * The longest second walk: when the first one held some matches but not a page, the text's frequency there sizes a
 * second walk, taken only while it stays this short; beyond it the title's index answers faster.
 */
const WIDEST_SEARCH_WINDOW = 20_000;
/**
 * What a match found through the title's index costs against a record walked in manual order (fetched, tested,
 * sorted): at 100,000 records, 965 matches took 2.0 ms, a walk of 15,150 records 7.9 ms.
 */
const RECORDS_WALKED_PER_MATCH = 4;
/** The second walk's length times the matches the first one found: half as long again as a page needs at that rate. */
const secondWalkSpan = (limit: number) => 1.5 * SEARCH_WINDOW * (limit + 1);

type PageSource = 'table' | 'window' | 'matches';

/** The first sort key's value in `bounded`'s ranges. */
const BOUNDED_KEY = '__bound_key';

/** Page shapes whose text is kept per table: field selections and sorts without conditions. */
const MAX_TEXTS_PER_TABLE = 64;

/** An exact count stops here: counting a million rows on every page view is what we promise not to do. */
export const COUNT_CAP = 10_000;

/**
 * Record queries: filter AST, sorts, `q`, a view's filter and sorts, a field selection, keyset
 * pages whose cursor is bound to the query, and counts only when asked. One SQL statement per
 * page (plus one for the names of users the process has not cached yet, and one for a count
 * when asked).
 */
export class QueryService {
  /** Texts `keepText` kept: per records table as cached, by page shape. */
  private readonly plainTexts = new WeakMap<RecordTable, Map<string, string>>();

  constructor(
    private readonly db: Db,
    private readonly views: RecordViewHooks,
    private readonly queries: RecordQueryHooks,
    private readonly records: RecordService,
    private readonly storage: Storage,
    private readonly authz: Authz,
  ) {}

  /**
   * The records tables that conditions through this table's links and lookups reach, among the
   * databases the caller can see (a path into one they cannot see is an unknown field).
   */
  async linkedTables(principal: UserPrincipal, table: RecordTable, trx?: Db): Promise<LinkedTables> {
    const ids = [...new Set(table.fields.flatMap((f) => acrossOf(f)?.database(f) ?? []))];
    if (ids.length === 0) return () => undefined;
    const access = await this.authz.workspaceAccess(principal, table.workspaceId, trx);
    const tables = new Map<string, RecordTable>();
    for (const id of await this.authz.seenIds(principal, access, 'database', ids, trx)) {
      tables.set(id, trx ? await this.records.open(trx, table.workspaceId, id) : await this.records.readTable(table.workspaceId, id));
    }
    return (id) => tables.get(id);
  }

  /** `base` is where the request's inputs are: `''` for a body, `/query` for a URL's query string. */
  async query(principal: UserPrincipal, workspaceId: string, databaseId: string, input: RecordQuery, base: string): Promise<QueryPage> {
    const table = await this.records.seenBy(principal, await this.records.readTable(workspaceId, databaseId));
    const view = input.view_id
      ? await this.views.resolve.promise({ workspaceId, databaseId, viewId: input.view_id, userId: principal.user.id })
      : undefined;
    if (input.view_id && !view) throw invalidField(`${base}/view_id`, 'No view with this id in this database.');

    const errors: ErrorDetail[] = [];
    const ctx = { userId: principal.user.id, now: new Date() };
    const conditions: SqlCondition[] = [];
    const linked = input.filter !== undefined || (view?.filters.length ?? 0) > 0 ? await this.linkedTables(principal, table) : undefined;
    for (const filter of view?.filters ?? []) {
      const viewErrors: ErrorDetail[] = [];
      conditions.push(compileFilter(table, filter, ctx, '', viewErrors, linked));
      if (viewErrors.length > 0) errors.push({ pointer: `${base}/view_id`, detail: `The view's filter no longer fits the fields: ${viewErrors.map((e) => e.detail).join(' ')}` });
    }
    if (input.filter !== undefined) conditions.push(compileFilter(table, input.filter, ctx, `${base}/filter`, errors, linked));
    if (input.q !== undefined) conditions.push(table.titleContains(input.q));
    const sorts: SortInput[] | undefined = input.sorts ?? view?.sorts;
    const keys = sortKeys(table, sorts, input.sorts ? `${base}/sorts` : `${base}/view_id`, errors);
    const fields = this.selectedFields(table, input.fields, base, errors);
    if (errors.length > 0) throw validationFailed(errors);

    // The view's filters are part of the query: a cursor made before the view changed is refused. So is the
    // database: its keys would fit any other's pages (manual order is `position, id` everywhere).
    const print = queryFingerprint({
      database_id: databaseId,
      filter: input.filter ?? null,
      sorts: sorts ?? null,
      q: input.q ?? null,
      view_id: input.view_id ?? null,
      view_filters: view?.filters ?? null,
    });
    const where = (q: Knex.QueryBuilder) => {
      q.whereNull('deleted_at');
      for (const c of conditions) q.whereRaw(c.sql, c.bindings as Knex.RawBinding[]);
      return q;
    };
    const limit = input.limit ?? 50;
    const cursor = input.cursor ? decodeCursor(input.cursor, keys, { fingerprint: print, pointer: `${base}/cursor` }) : undefined;
    const after = cursor ? afterCursor(keys, cursor) : undefined;
    const bound = cursor ? nullableBound(keys, cursor) : undefined;
    // Two steps in one statement: the page's ids and sort keys (narrow rows: an unindexed sort
    // moves less data, and manual order is an index-only scan), then its rows by primary key,
    // with the keys as text for the cursor computed for those rows only. The rows are looked up one
    // by one (a LATERAL subquery that `OFFSET 0` keeps from being merged into a join): for a page of
    // 1,000 PostgreSQL otherwise hashed the page and read the whole table to join it (20 ms of a 36 ms
    // page at 100,000 records, against ~3 ms for the lookups).
    const pick = (source: PageSource, window = SEARCH_WINDOW) => {
      const ranged = source === 'table' && bound !== undefined;
      const from = ranged ? this.bounded(table, keys, bound, where, limit) : this.pickFrom(table, source, keys, after, where, window);
      // The matches and the ranges come with the conditions applied already (the matches with only the columns the keys read).
      const picked = source === 'matches' || ranged ? from.select('id') : where(from.select('id'));
      for (const join of new Set(keys.flatMap((k) => (k.join ? [k.join] : [])))) picked.joinRaw(join);
      // The id key is the picked id itself: a second copy made every sorted tuple wider.
      keys.forEach((k, i) => k !== ID_KEY && picked.select(this.db.raw(`${k.expr} AS ??`, [alias(i)])));
      if (after) picked.whereRaw(after.sql, after.bindings as Knex.RawBinding[]);
      return picked.orderByRaw(orderBy(keys)).limit(limit + 1);
    };
    /** The page's rows for the ids and keys `picked`, with the CTEs it names and those of its columns to carry over. */
    const pageOf = (picked: Knex.QueryBuilder | Knex.Raw, ctes: Array<[string, Knex.QueryBuilder | Knex.Raw]> = [], carried: string[] = []) => {
      // Links, lookups, rollups: computed for the page's rows in the same statement.
      const computed = computedReads(fields, 'r');
      const page = ctes
        .reduce((q, [name, cte]) => q.with(name, cte), this.db.queryBuilder())
        .with('page', picked)
        .from('page')
        .joinRaw('CROSS JOIN LATERAL (SELECT * FROM ?? WHERE ??.id = "page".id OFFSET 0) AS r', [table.table, table.table])
        .select(table.columnsOf(fields).map((c) => `r.${c}`))
        .select(computed.cells.map((cell) => this.db.raw(cell)))
        .options(TEXT_DATES)
        .orderByRaw(orderBy(keys.map((k, i) => ({ ...k, expr: `"page"."${alias(i)}"` }))));
      for (const join of computed.joins) page.joinRaw(join);
      keys.forEach((_, i) => page.select(this.db.raw('??::text AS ??', [`page.${alias(i)}`, `__k${i}`])));
      return page.select(carried.map((c) => `page.${c}`));
    };
    const pageFrom = (source: PageSource, window = SEARCH_WINDOW) => pageOf(pick(source, window));
    const alias = (i: number) => (keys[i] === ID_KEY ? 'id' : `__k${i}`);
    type Rows = Array<RecordRow & Record<string, string | null>>;

    const started = performance.now();
    const counted = input.count ? this.count(where(this.db(table.table)), input.count) : undefined;
    let rows: Rows;
    if (input.q !== undefined && keys === MANUAL_KEYS) {
      // A search in manual order: the page is in the next SEARCH_WINDOW records when the text is common (a short walk
      // of the position index); when it is not, the matches come from the title's trigram index first. Which plan
      // PostgreSQL would pick for the plain query depends on the statistics of the moment.
      // Some matches but not a page: a walk long enough to hold one at the frequency seen (half as long again), when
      // it stays short; a text in 1 % of a million titles had its 10,000 matches sorted for a page of 100 (32 ms).
      // Unless the index's matches would cost less: about as many as the first walk's share of the whole table.
      // The first walk and the index are one statement, which answers the walk's records when they hold a page or
      // call for the second walk, and the index's matches otherwise (`__walked` says which).
      const [picked, ctes] = this.firstSearchStep(table, pick('window'), pick('matches'), limit);
      // Prepared: its plan hardly depends on the text (the walk goes down the position index, the matches come from the
      // trigram index, the only one there is for them), and planning it took 1.6 ms of a 7 ms search.
      rows = (await this.storage.repeated(pageOf(picked, ctes, ['__walked']), `${table.databaseId}:${table.schemaVersion}`)) as Rows;
      if (rows.length <= limit && (rows[0] as { __walked?: boolean } | undefined)?.__walked) {
        rows = (await pageFrom('window', Math.ceil(secondWalkSpan(limit) / rows.length))) as Rows;
        if (rows.length <= limit) rows = (await pageFrom('matches')) as Rows;
      }
    } else if (conditions.length > 0) {
      rows = (await (this.inIndexOrder(table, fields, keys, after, bound, where, limit) ?? pageFrom('table'))) as Rows;
    } else {
      // Without conditions the best plan does not depend on the values (limit, cursor): prepared, and its text kept.
      const shape = `${JSON.stringify(input.fields ?? null)}|${JSON.stringify(sorts ?? null)}|${after?.sql ?? ''}|${bound?.sql ?? ''}`;
      const known = this.plainTexts.get(table)?.get(shape);
      // Past a cursor on a nullable key: the first range's bound, then the limit of each range and of the page.
      const values = bound === undefined ? [...(after?.bindings ?? []), limit + 1] : [...bound.bindings, limit + 1, limit + 1, limit + 1];
      const page = known !== undefined ? { sql: known, bindings: values, options: TEXT_DATES } : this.keepText(table, shape, this.inIndexOrder(table, fields, keys, after, bound, where, limit), values) ?? pageFrom('table');
      rows = (await this.storage.repeated(page, `${table.databaseId}:${table.schemaVersion}`)) as Rows;
    }
    const count = await counted;
    this.tell(table, input, performance.now() - started);
    const more = rows.length > limit;
    if (more) rows.length = limit;
    const last = rows[rows.length - 1];
    const next = more && last ? encodeCursor(keys.map((_, i) => last[`__k${i}`]), print) : null;
    const data = await this.records.present(this.db, table, rows, fields);
    return count === undefined ? { data, next_cursor: next } : { data, next_cursor: next, count: count.value, count_exact: count.exact };
  }

  /**
   * A page read straight off an index that gives the records in its order (manual order's position index, or one the
   * view-index sync built or found for the first key): one plain statement. Picking ids first and looking each row up
   * again pays only for a sort no index gives (PostgreSQL alone, 100,000 records: a page of 100 in manual order 0.22
   * against 0.38 ms; of 1,000 down an index 5.7 against 9.2 ms; but of 1,000 sorted by an unindexed field 120 against
   * 78 ms, every row's columns being carried through the sort). Null when no index serves the first key, or when the
   * keys or fields join other tables (links' grouped lookups), whose columns the unqualified keys would collide with.
   */
  private inIndexOrder(table: RecordTable, fields: LiveField[], keys: SortKey[], after: SqlCondition | undefined, bound: SqlCondition | undefined, where: (q: Knex.QueryBuilder) => Knex.QueryBuilder, limit: number): Knex.QueryBuilder | null {
    const [first] = keys;
    // Every records table has its position index (record-table.ts).
    if (keys.some((k) => k.join) || (keys !== MANUAL_KEYS && !table.indexed(first.expr, first.direction))) return null;
    const row = `"${table.table}"`;
    const computed = computedReads(fields, row);
    if (computed.joins.length > 0) return null;
    const page = bound !== undefined ? this.bounded(table, keys, bound, where, limit) : where(this.db(table.table));
    page
      .select(table.columnsOf(fields).map((c) => `${table.table}.${c}`))
      .select(computed.cells.map((cell) => this.db.raw(cell)))
      .options(TEXT_DATES);
    // The two ranges are the records after the cursor already.
    if (after && bound === undefined) page.whereRaw(after.sql, after.bindings as Knex.RawBinding[]);
    keys.forEach((k, i) => page.select(this.db.raw(`(${k.expr})::text AS ??`, [`__k${i}`])));
    return page.orderByRaw(orderBy(bound === undefined ? keys : keys.map((k, i) => (i === 0 ? { ...k, expr: `"${BOUNDED_KEY}"` } : k)))).limit(limit + 1);
  }

  /**
   * Keeps the text of an unconditioned page read down an index, for its table (as cached: a change of fields or
   * indexes makes another) and `shape`, when its parameters are `values` in order: the list page's query was built and
   * compiled by knex on every request, a tenth of a millisecond of a 2.5 ms answer.
   */
  private keepText(table: RecordTable, shape: string, page: Knex.QueryBuilder | null, values: unknown[]): Knex.QueryBuilder | null {
    if (!page) return null;
    const compiled = page.toSQL().toNative();
    if (compiled.bindings.length !== values.length || compiled.bindings.some((b, i) => b !== values[i])) return page;
    const texts = this.plainTexts.get(table) ?? new Map<string, string>();
    if (texts.size < MAX_TEXTS_PER_TABLE) texts.set(shape, compiled.sql);
    this.plainTexts.set(table, texts);
    return page;
  }

  /**
   * Where a page's ids are picked from: the table; the next `window` live records in manual order (`window`);
   * or the records matching the conditions, found first and kept apart (`matches`: a materialised CTE of their ids
   * and positions, so the trigram index finds them whatever the statistics say, and the sort sees only them).
   * Aliased as the table, so the conditions and keys read the same either way.
   */
  private pickFrom(table: RecordTable, source: PageSource, keys: SortKey[], after: SqlCondition | undefined, where: (q: Knex.QueryBuilder) => Knex.QueryBuilder, window: number): Knex.QueryBuilder {
    if (source === 'table') return this.db(table.table);
    const inner = this.db(table.table).select('*').whereNull('deleted_at');
    if (after) inner.whereRaw(after.sql, after.bindings as Knex.RawBinding[]);
    if (source === 'window') return this.db.from(inner.orderByRaw(orderBy(keys)).limit(window).as(table.table));
    return this.db.withMaterialized(table.table, where(inner.clearSelect().select('id', 'position'))).from(table.table);
  }

  /**
   * The records after a cursor on one nullable key, as two index ranges: the non-empty keys from the cursor's on (the
   * equal ones after its id), then the empty ones (they sort last either way). In one condition, `key < v OR (key = v
   * AND id > w) OR key IS NULL`, no index bound served it, and PostgreSQL walked the index from its start: the 50th
   * page of 1,000 took 152 ms against 23 ms for the first. Each range is cut at the page's size; the page is then taken
   * from at most twice that. Aliased as the table, like `pickFrom`'s sources, with the first key as `BOUNDED_KEY`:
   * ordered by that column, PostgreSQL merges the two ranges as they come instead of sorting their rows again.
   */
  private bounded(table: RecordTable, keys: SortKey[], bound: SqlCondition, where: (q: Knex.QueryBuilder) => Knex.QueryBuilder, limit: number): Knex.QueryBuilder {
    const range = (condition: SqlCondition) =>
      where(this.db(table.table).select('*', this.db.raw(`${keys[0].expr} AS ??`, [BOUNDED_KEY])))
        .whereRaw(condition.sql, condition.bindings as Knex.RawBinding[])
        .orderByRaw(orderBy(keys))
        .limit(limit + 1);
    const ranges = [range(bound), range({ sql: `${keys[0].expr} IS NULL`, bindings: [] })];
    return this.db.from(this.db.raw('((?) UNION ALL (?)) AS ??', [...ranges, table.table]));
  }

  /**
   * A search's first step as one statement: the first walk's picks (`walk`), whether they are the answer (`gate`), and
   * the picks the page is made of — the walk's when they hold a page, or when the frequency seen calls for a second walk
   * (which the caller then takes), else the index's matches, which PostgreSQL does not look for otherwise. The table's
   * size is the planner's row count or the statistics collector's, whichever is higher (a table filled and not yet
   * analysed has no planner count).
   */
  private firstSearchStep(table: RecordTable, walk: Knex.QueryBuilder, matches: Knex.QueryBuilder, limit: number): [Knex.Raw, Array<[string, Knex.QueryBuilder | Knex.Raw]>] {
    const gate = this.db.raw(
      `SELECT n > ?::int OR (n > 0 AND wider <= ?::int AND wider < ?::float8 * n * live / ?::int) AS walked
         FROM (SELECT count(*) AS n, ceil(?::float8 / nullif(count(*), 0)) AS wider,
                      coalesce((SELECT greatest(c.reltuples, pg_stat_get_live_tuples(c.oid))::float8
                                  FROM pg_class c WHERE c.oid = to_regclass(?)), 0) AS live
                 FROM "walk") AS seen`,
      [limit, WIDEST_SEARCH_WINDOW, RECORDS_WALKED_PER_MATCH, SEARCH_WINDOW, secondWalkSpan(limit), table.table],
    );
    const picked = this.db.raw(
      `SELECT *, true AS "__walked" FROM "walk" WHERE (SELECT walked FROM "gate")
       UNION ALL SELECT *, false FROM (?) AS m WHERE NOT (SELECT walked FROM "gate")`,
      [matches],
    );
    return [picked, [['walk', walk], ['gate', gate]]];
  }

  /** What the caller asked for itself (a view's own filter and sorts are the views plugin's to tell), by field id. */
  private tell(table: RecordTable, input: RecordQuery, ms: number): void {
    if (!this.queries.ran.isUsed()) return;
    const ids = (refs: string[]) => [...new Set(refs.flatMap((ref) => table.field(ref.split('.', 2)[0])?.id ?? []))];
    const sorted = new Map<string, 'asc' | 'desc'>();
    for (const sort of input.sorts ?? []) {
      const fieldId = table.field(sort.field)?.id;
      if (fieldId && !sorted.has(fieldId)) sorted.set(fieldId, sort.direction ?? 'asc');
    }
    this.queries.ran.call({
      workspaceId: table.workspaceId,
      databaseId: table.databaseId,
      filtered: ids(filterFieldRefs(input.filter)),
      sorted: [...sorted].map(([fieldId, direction]) => ({ fieldId, direction })),
      ms,
    });
  }

  /** `fields` (api names) → the live fields to show; absent: all of them. */
  private selectedFields(table: RecordTable, names: string[] | undefined, base: string, errors: ErrorDetail[]): LiveField[] {
    if (!names) return table.fields;
    const chosen = new Set<string>();
    names.forEach((name, i) => {
      if (table.byApiName.has(name)) chosen.add(name);
      else errors.push({ pointer: `${base}/fields/${i}`, detail: `No field "${name}" in this database.` });
    });
    return table.fields.filter((f) => chosen.has(f.api_name));
  }

  /** Exact up to COUNT_CAP (`count_exact: false` beyond), or the planner's estimate (no rows read). */
  private async count(query: Knex.QueryBuilder, kind: 'exact' | 'estimate'): Promise<{ value: number; exact: boolean }> {
    if (kind === 'estimate') {
      const { sql, bindings } = query.select(this.db.raw('1')).toSQL();
      const result = await this.db.raw(`EXPLAIN (FORMAT JSON) ${sql}`, bindings as Knex.RawBinding[]);
      const plan = result.rows[0]['QUERY PLAN'];
      const parsed = typeof plan === 'string' ? JSON.parse(plan) : plan;
      return { value: Math.round(parsed[0].Plan['Plan Rows']), exact: false };
    }
    const capped = query.select(this.db.raw('1')).limit(COUNT_CAP + 1);
    const value = await countRows(this.db.from(capped.as('capped')));
    return value > COUNT_CAP ? { value: COUNT_CAP, exact: false } : { value, exact: true };
  }
}

