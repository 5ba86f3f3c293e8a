import { CursorExpired } from '../sources/public.ts';

/**
 * Where a read of a repository's issues goes on from.
 *
 * - `null`: nothing read yet; a full listing.
 * - `{ since }`: after the last page of a read: the greatest `updated_at` it listed (GitHub's own text,
 *   `2024-05-01T09:30:00Z`). The next read lists the issues updated at or after it.
 * - `{ since, next, max_updated }`: after a page that has more after it: `next` is the next page's URL as GitHub gave it
 *   in its `Link` header, `since` the read's own (null for a full listing, so a resumed one still says `snapshot`), and
 *   `max_updated` the greatest `updated_at` listed so far (null while none), so the resumed read ends with the right
 *   `since`.
 */
export type IssuesCursor = { since: string } | PageCursor;

export interface PageCursor {
  since: string | null;
  next: string;
  max_updated: string | null;
}

/** An instant as GitHub writes one (`YYYY-MM-DDTHH:MM:SSZ`, perhaps with a fraction or an offset). */
const INSTANT = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$/;

export function isInstant(value: unknown): value is string {
  return typeof value === 'string' && INSTANT.test(value) && Number.isFinite(Date.parse(value));
}

/** The later of two instants (either may be null). */
export function later(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(b) > Date.parse(a) ? b : a;
}

const EXPIRED = 'The cursor is not one this source can go on from: it reads every issue again.';

/** Reads a stored cursor; one this kind did not write throws `CursorExpired` (the run starts again with a full read). */
export function readCursor(raw: unknown): IssuesCursor | null {
  if (raw === null || raw === undefined) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new CursorExpired(EXPIRED);
  const c = raw as Record<string, unknown>;
  const since = c.since === undefined ? null : c.since;
  if (since !== null && !isInstant(since)) throw new CursorExpired(EXPIRED);
  if (c.next === undefined) return since === null ? null : { since };
  const maxUpdated = c.max_updated === undefined ? null : c.max_updated;
  if (typeof c.next !== 'string' || (maxUpdated !== null && !isInstant(maxUpdated))) throw new CursorExpired(EXPIRED);
  return { since, next: c.next, max_updated: maxUpdated };
}

export const isPageCursor = (cursor: IssuesCursor): cursor is PageCursor => 'next' in cursor;
