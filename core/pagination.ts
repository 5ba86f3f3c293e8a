import type { Knex } from 'knex';
import { Type, type TSchema } from './schema.ts';
import { decodeCursor, encodeCursor, queryFingerprint, type CursorKeyType } from './cursor.ts';

/** `?limit=` and `?cursor=` for a list route; `max` is 200 for most lists and 1000 for record pages. */
export function pageQuery(max = 200) {
  return Type.Object({
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: max, default: 50, description: `Page size (1–${max}, default 50).` })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Opaque `next_cursor` of the previous page.' })),
  });
}

export const PageQuery = pageQuery();

/** `{ data: [...], next_cursor }`, the shape of every list. */
export function pageOf<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `?cursor=` for the next page; null on the last page.' }),
  });
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface Keyset {
  /** Columns in sort order, the last one unique (usually `id`); all sorted the same direction. */
  keys: Array<{ column: string; type: CursorKeyType }>;
  direction: 'asc' | 'desc';
}

/**
 * Runs `query` (which must select its own columns) as one keyset page: `LIMIT n + 1`, no
 * count, the cursor from core/cursor.ts. `scope`: what the list is of (a database), when its keys
 * would fit another's list as well; the cursor is bound to it, and another list's is a 422.
 */
export async function keysetPage<T extends object>(
  db: Knex,
  query: Knex.QueryBuilder,
  keyset: Keyset,
  page: { limit?: number; cursor?: string },
  scope?: object,
): Promise<Page<T>> {
  const limit = page.limit ?? 50;
  const columns = keyset.keys.map((k) => k.column);
  const aliases = keyset.keys.map((_, i) => `__cursor_${i}`);
  const fingerprint = scope ? queryFingerprint(scope) : '';
  const q = query.clone();
  keyset.keys.forEach((k, i) => q.select(db.raw(`??::text as ??`, [k.column, aliases[i]])));
  if (page.cursor) {
    const values = decodeCursor(page.cursor, keyset.keys, { fingerprint });
    const tuple = keyset.keys.map((k) => `?::${k.type}`).join(', ');
    const cols = columns.map(() => '??').join(', ');
    q.whereRaw(`(${cols}) ${keyset.direction === 'desc' ? '<' : '>'} (${tuple})`, [...columns, ...values]);
  }
  for (const column of columns) q.orderBy(column, keyset.direction);
  const rows = (await q.limit(limit + 1)) as Array<T & Record<string, string>>;
  const more = rows.length > limit;
  if (more) rows.length = limit;
  const last = rows[rows.length - 1];
  const next = more && last ? encodeCursor(aliases.map((a) => last[a]), fingerprint) : null;
  for (const row of rows) for (const a of aliases) delete row[a];
  return { data: rows as T[], next_cursor: next };
}
