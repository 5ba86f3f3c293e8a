import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/canonical-json.ts';
import { invalidField } from '../../core/errors.ts';
import { UUID_PATTERN } from '../../core/schema.ts';
import type { SqlCondition } from '../databases/public.ts';
import type { SortKey } from './sort-keys.ts';

/**
 * A query cursor: the fingerprint of the query it belongs to, then the sort key values of the
 * last record of the page as PostgreSQL text (null for an empty key). Values, not a record id:
 * a record changed or deleted between pages does not move the others.
 */
type CursorBody = [fingerprint: string, values: Array<string | null>];

export function fingerprint(query: unknown): string {
  return createHash('sha256').update(canonicalJson(query)).digest('base64url').slice(0, 16);
}

export function encodeQueryCursor(print: string, values: Array<string | null>): string {
  return Buffer.from(JSON.stringify([print, values] satisfies CursorBody)).toString('base64url');
}

/** What a key's text must look like before it is cast back: a bad cursor is a 422, never a SQL error. */
const TEXT_OF: Record<string, (text: string) => boolean> = {
  uuid: (t) => UUID_PATTERN.test(t),
  text: () => true,
  numeric: (t) => /^-?\d+(\.\d+)?$/.test(t),
  bigint: (t) => /^-?\d{1,19}$/.test(t),
  integer: (t) => /^-?\d{1,10}$/.test(t),
  smallint: (t) => /^-?\d{1,5}$/.test(t),
  boolean: (t) => t === 'true' || t === 'false',
  date: (t) => /^\d{4}-\d{2}-\d{2}$/.test(t),
  timestamptz: (t) => /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:?\d{2})?|Z)$/.test(t),
  jsonb: (t) => {
    try {
      JSON.parse(t);
      return true;
    } catch {
      return false;
    }
  },
};

/**
 * The cursor's key values, checked against the query (`print`) and the keys' types. `pointer`
 * names where the cursor came from (`/cursor` in a body, `/query/cursor` in a URL).
 */
export function decodeQueryCursor(cursor: string, print: string, keys: SortKey[], pointer: string): Array<string | null> {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    body = undefined;
  }
  const invalid = () => invalidField(pointer, 'The cursor is invalid; pass the next_cursor of a previous page unchanged.');
  if (!Array.isArray(body) || body.length !== 2 || typeof body[0] !== 'string' || !Array.isArray(body[1])) throw invalid();
  if (body[0] !== print) {
    throw invalidField(pointer, 'This cursor belongs to another query: send the same filter, sorts, q and view_id as the request that returned it.');
  }
  const values = body[1] as unknown[];
  if (values.length !== keys.length) throw invalid();
  values.forEach((v, i) => {
    const valid = v === null ? keys[i].nullable : typeof v === 'string' && (TEXT_OF[keys[i].type] ?? (() => true))(v);
    if (!valid) throw invalid();
  });
  return values as Array<string | null>;
}

/**
 * Records after the cursor in the order of `keys` (nulls last in both directions). When every key
 * is non-null and all go the same way, one row comparison, which a `(key…, id)` index serves;
 * otherwise the expansion "equal on the first i keys, after on the next".
 */
export function afterCursor(keys: SortKey[], values: Array<string | null>): SqlCondition {
  const value = (i: number) => `?::${keys[i].type}`;
  if (keys.every((k) => !k.nullable && k.direction === keys[0].direction)) {
    return {
      sql: `(${keys.map((k) => k.expr).join(', ')}) ${keys[0].direction === 'asc' ? '>' : '<'} (${keys.map((_, i) => value(i)).join(', ')})`,
      bindings: values,
    };
  }
  const terms: SqlCondition[] = [];
  for (let i = 0; i < keys.length; i++) {
    if (values[i] === null) continue; // nothing sorts after an empty key but other empty ones, compared on later keys
    const prefix = keys.slice(0, i).map((k, j): SqlCondition => (values[j] === null ? { sql: `${k.expr} IS NULL`, bindings: [] } : { sql: `${k.expr} = ${value(j)}`, bindings: [values[j]] }));
    const k = keys[i];
    const beyond = `${k.expr} ${k.direction === 'asc' ? '>' : '<'} ${value(i)}`;
    const after: SqlCondition = { sql: k.nullable ? `(${beyond} OR ${k.expr} IS NULL)` : beyond, bindings: [values[i]] };
    const parts = [...prefix, after];
    terms.push({ sql: parts.map((p) => p.sql).join(' AND '), bindings: parts.flatMap((p) => p.bindings) });
  }
  if (terms.length === 0) return { sql: 'false', bindings: [] };
  return { sql: `(${terms.map((t) => `(${t.sql})`).join(' OR ')})`, bindings: terms.flatMap((t) => t.bindings) };
}

export function orderBy(keys: SortKey[]): string {
  return keys.map((k) => `${k.expr} ${k.direction === 'asc' ? 'ASC' : 'DESC'} NULLS LAST`).join(', ');
}
