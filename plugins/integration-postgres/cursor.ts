import { CursorExpired } from '../sources/public.ts';

/**
 * Where a full read (a listing of every row, in key order) goes on: after the key `after_key` (its text form), with
 * `max_updated_at`, the greatest updated-at value of the rows listed so far (with an updated-at column; null while
 * none had one), so that a listing resumed from here still ends with the right `updated_since`.
 */
export interface ListingCursor {
  after_key: string;
  max_updated_at?: string | null;
}

/**
 * Where an incremental read goes on: rows whose updated-at is after `updated_since`, and once a page was read, after
 * `after` = [updated-at, key] of its last row (rows are read in that order). Values are PostgreSQL's text forms, in
 * full precision (microseconds).
 */
export interface ChangesCursor {
  updated_since: string;
  after?: [string, string];
}

export type Cursor = ListingCursor | ChangesCursor;

const isText = (v: unknown): v is string => typeof v === 'string';

/**
 * Reads a stored cursor: null starts a full read. A cursor this kind did not write, or one that no longer fits the
 * config (an incremental cursor once the updated-at column is gone), is expired: the run starts again from null.
 */
export function readCursor(raw: unknown, hasUpdatedAt: boolean): Cursor | null {
  if (raw === null || raw === undefined) return null;
  const c = raw as Record<string, unknown>;
  if (typeof raw === 'object' && isText(c.after_key) && (c.max_updated_at === undefined || c.max_updated_at === null || isText(c.max_updated_at)))
    return { after_key: c.after_key, max_updated_at: c.max_updated_at ?? null };
  if (typeof raw === 'object' && hasUpdatedAt && isText(c.updated_since)) {
    if (c.after === undefined) return { updated_since: c.updated_since };
    if (Array.isArray(c.after) && c.after.length === 2 && c.after.every(isText)) return { updated_since: c.updated_since, after: [c.after[0], c.after[1]] };
  }
  throw new CursorExpired('The cursor is not one this source can go on from: it reads everything again.');
}

export const isListing = (cursor: Cursor): cursor is ListingCursor => 'after_key' in cursor;
