import type { ChangesCursor, ListingCursor } from './cursor.ts';
import type { DescribedSource } from './source-plan.ts';

/** Rows per page: what one statement reads and one page carries, so memory stays flat whatever the table's size. */
export const PAGE_SIZE = 1000;

export interface Statement {
  sql: string;
  params: unknown[];
}

/** The synced columns, each read as the text its type decodes, named c0, c1, … (a column's own name could be anything). */
function projections(source: DescribedSource): string[] {
  return source.columns.map((column, i) => `${column.type.select(column.sql)} AS "c${i}"`);
}

/**
 * A page of the full listing: rows with a key, after the cursor's key, in key order (keyset pagination: each page is
 * found through the key's index, however deep into the table). With an updated-at column, `m` carries the greatest
 * updated-at among the rows listed so far (this page's and the cursor's `max_updated_at`), computed by PostgreSQL so
 * that nothing is compared in JS.
 */
export function listingPage(source: DescribedSource, cursor: ListingCursor | null, limit = PAGE_SIZE): Statement {
  const key = source.key.sql;
  const updated = source.updatedAt;
  const params: unknown[] = [];
  const where = [`${key} IS NOT NULL`];
  if (cursor) {
    params.push(cursor.after_key);
    where.push(`${key} > $${params.length}`);
  }
  const inner = [...projections(source), `${key}::text AS "k"`, `${key} AS "kr"`, ...(updated ? [`${updated.sql} AS "ur"`] : [])];
  const outer = [...source.columns.map((_, i) => `"c${i}"`), '"k"'];
  if (updated) {
    params.push(cursor?.max_updated_at ?? null);
    outer.push(`(SELECT greatest($${params.length}::${updated.sqlType}, max("ur")) FROM page)::text AS "m"`);
  }
  const page = `SELECT ${inner.join(', ')} FROM ${source.relation.sql} AS src WHERE ${where.join(' AND ')} ORDER BY ${key} LIMIT ${limit}`;
  return { sql: `WITH page AS (${page}) SELECT ${outer.join(', ')} FROM page ORDER BY "kr"`, params };
}

/**
 * A page of what changed: rows updated after the cursor's `updated_since` (or after its last row), in (updated-at,
 * key) order, so rows sharing one updated-at value are neither skipped nor read twice across pages.
 */
export function changesPage(source: DescribedSource, cursor: ChangesCursor, limit = PAGE_SIZE): Statement {
  const key = source.key.sql;
  const updated = source.updatedAt!;
  const after = cursor.after
    ? { sql: `(${updated.sql}, ${key}) > ($1::${updated.sqlType}, $2)`, params: cursor.after }
    : { sql: `${updated.sql} > $1::${updated.sqlType}`, params: [cursor.updated_since] };
  const columns = [...projections(source), `${key}::text AS "k"`, `${updated.sql}::text AS "u"`];
  return {
    sql: `SELECT ${columns.join(', ')} FROM ${source.relation.sql} AS src WHERE ${key} IS NOT NULL AND ${after.sql} ORDER BY ${updated.sql}, ${key} LIMIT ${limit}`,
    params: after.params,
  };
}
