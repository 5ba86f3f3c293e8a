import { createHash } from 'node:crypto';
import { CursorExpired, type SourceInput, type SourcePage, type SourceRow } from '../sources/public.ts';
import { eventGroups, parseCalendars } from './calendar.ts';
import type { AddressRules } from './feed-address.ts';
import { fetchFeed, type FetchLimits } from './feed-fetch.ts';
import { eventRows, type ExpansionLimits, type Window } from './occurrences.ts';
import { DEFAULT_FUTURE_DAYS, DEFAULT_PAST_DAYS, type IcalEventsConfig } from './schemas.ts';

const PAGE_SIZE = 500;

const DAY_MS = 86_400_000;

/**
 * Where a read goes on from: pages already stored, and the fingerprint of what they were cut from (the feed's bytes
 * and the window), since a page index means something only in the same rows.
 */
interface Cursor {
  page: number;
  fingerprint: string;
}

function windowOf(now: Date, config: IcalEventsConfig): Window {
  return {
    start: now.getTime() - (config.past_days ?? DEFAULT_PAST_DAYS) * DAY_MS,
    end: now.getTime() + (config.future_days ?? DEFAULT_FUTURE_DAYS) * DAY_MS,
  };
}

function pagesDone(cursor: unknown, fingerprint: string): number {
  if (cursor === null || cursor === undefined) return 0;
  const c = cursor as Partial<Cursor>;
  if (typeof c === 'object' && Number.isSafeInteger(c.page) && c.page! > 0 && c.fingerprint === fingerprint) return c.page!;
  throw new CursorExpired('The feed (or the window) changed since this read began: it is read again from the start.');
}

/**
 * Reads a feed in full every time (a file has no "changes since"), a page of at most `PAGE_SIZE` rows at a time, every
 * page `snapshot: true`. A page's cursor is the count of pages done; the last page's is null, so the next run reads
 * from the start. An empty feed still gives one (empty) page, which tells the sources plugin that every row is gone.
 */
export async function* readFeed(
  input: SourceInput<IcalEventsConfig> & { cursor: unknown },
  rules: AddressRules,
  limits: FetchLimits & ExpansionLimits,
): AsyncGenerator<SourcePage> {
  const window = windowOf(input.now, input.config);
  const body = await fetchFeed(input.config.url, rules, limits, input.signal);
  const fingerprint = createHash('sha256').update(body).update(`\n${window.start}/${window.end}`).digest('hex');
  const skip = pagesDone(input.cursor, fingerprint);
  const calendars = parseCalendars(new TextDecoder('utf-8').decode(body), new URL(input.config.url).host);
  let index = 0;
  let page: SourceRow[] = [];
  for await (const row of eventRows(eventGroups(calendars), window, limits, input.signal)) {
    // A full page goes out only once another row follows it, so the last page is always the one with a null cursor.
    if (page.length === PAGE_SIZE) {
      if (index >= skip) yield { rows: page, cursor: { page: index + 1, fingerprint } satisfies Cursor, snapshot: true };
      index++;
      page = [];
    }
    page.push(row);
  }
  yield { rows: page, cursor: null, snapshot: true };
}
