import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';
import { invalidField } from './errors.ts';
import { UUID_PATTERN } from './schema.ts';

/**
 * The one cursor of every page: base64url JSON `[fingerprint, values]`. `values` are the sort keys of the last
 * row as PostgreSQL text (null for an empty key), so timestamps keep their microseconds and a row changed or
 * deleted between pages moves no other. `fingerprint` ties the cursor to the query that made it (a database, a filter
 * and sorts hashed with `queryFingerprint`), empty for a list whose keys fit no other list.
 */
type CursorBody = [fingerprint: string, values: Array<string | null>];

/** What a key's text must look like before SQL casts it back: a bad cursor is a 422, never a SQL error. */
const KEY_TEXT = {
  uuid: (t: string) => UUID_PATTERN.test(t),
  text: () => true,
  numeric: (t: string) => /^-?\d+(\.\d+)?$/.test(t),
  bigint: (t: string) => /^-?\d{1,19}$/.test(t),
  integer: (t: string) => /^-?\d{1,10}$/.test(t),
  smallint: (t: string) => /^-?\d{1,5}$/.test(t),
  boolean: (t: string) => t === 'true' || t === 'false',
  date: (t: string) => /^\d{4}-\d{2}-\d{2}$/.test(t),
  timestamptz: (t: string) => /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:?\d{2})?|Z)$/.test(t),
  jsonb: (t: string) => {
    try {
      JSON.parse(t);
      return true;
    } catch {
      return false;
    }
  },
} as const;

export type CursorKeyType = keyof typeof KEY_TEXT;

/** One sort key of a cursor: the SQL type its text is cast back to, and whether it may be empty. */
export interface CursorKey {
  type: string;
  nullable?: boolean;
}

function isCursorKeyType(type: string): type is CursorKeyType {
  return Object.hasOwn(KEY_TEXT, type);
}

/** The fingerprint of a query: the same filter, sorts and search always give the same one. */
export function queryFingerprint(query: unknown): string {
  return createHash('sha256').update(canonicalJson(query)).digest('base64url').slice(0, 16);
}

export function encodeCursor(values: Array<string | null>, fingerprint = ''): string {
  return Buffer.from(JSON.stringify([fingerprint, values] satisfies CursorBody)).toString('base64url');
}

const INVALID = 'The cursor is invalid; pass the next_cursor of a previous page unchanged.';

/**
 * The cursor's key values, checked against the query's fingerprint and the keys' types; a 422 at `pointer`
 * (`/query/cursor` in a URL, `/cursor` in a body) otherwise.
 */
export function decodeCursor(cursor: string, keys: CursorKey[], opts: { fingerprint?: string; pointer?: string } = {}): Array<string | null> {
  const pointer = opts.pointer ?? '/query/cursor';
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    body = undefined;
  }
  if (!Array.isArray(body) || body.length !== 2 || typeof body[0] !== 'string' || !Array.isArray(body[1])) throw invalidField(pointer, INVALID);
  if (body[0] !== (opts.fingerprint ?? '')) {
    throw invalidField(pointer, 'This cursor belongs to another list or query: send it to the list that returned it, with the same filter, sorts, q and view_id.');
  }
  const values = body[1] as unknown[];
  if (values.length !== keys.length) throw invalidField(pointer, INVALID);
  values.forEach((v, i) => {
    const type = keys[i].type;
    const valid = v === null ? !!keys[i].nullable : typeof v === 'string' && (isCursorKeyType(type) ? KEY_TEXT[type](v) : true);
    if (!valid) throw invalidField(pointer, INVALID);
  });
  return values as Array<string | null>;
}
