import { ActionFailed, TokenRejected } from '../integrations/public.ts';
import { CursorExpired, RateLimited, SourceRefused, SourceUnavailable, type PushChannel, type SourceInput, type SourceKind, type SourcePage } from '../sources/public.ts';
import { calendarSegment, GoogleCalendarClient, GoogleRefused, SyncTokenExpired, withoutToken, type EventPage } from './calendar-client.ts';
import { deletedRow, eventProperties, eventRow } from './event-rows.ts';
import { DEFAULT_API_URL, DEFAULT_CALENDAR_ID, GOOGLE_CALENDAR_EVENTS_KIND, GoogleCalendarEventsConfig } from './schemas.ts';

/** Events per page: Google's default, and what a page of the sources plugin writes in one transaction. */
export const PAGE_SIZE = 250;
/** How long to wait when Google limits the rate without saying for how long (its 403 rate limits carry no Retry-After). */
export const DEFAULT_RATE_LIMIT_WAIT_S = 30;
/** Google's reasons for a 403 that is a rate limit rather than a refusal. */
const RATE_LIMIT_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded']);
/** A channel Google opened without saying when it ends (it always says): renewed within the hour, to be safe. */
const UNKNOWN_EXPIRY_MS = 3_600_000;

export interface GoogleCalendarEventsKindOptions {
  /** Root of the Calendar API (default `https://www.googleapis.com/calendar/v3`). */
  apiUrl?: string;
  /** How long one call to Google may take (default 10 s). */
  timeoutMs?: number;
}

/**
 * Where a read goes on from, as stored by the sources plugin after each page:
 * - `{ page_token }`: in the middle of a full listing (the next page's token);
 * - `{ sync_token, page_token }`: in the middle of an incremental read from `sync_token`;
 * - `{ sync_token }`: after a last page (Google's `nextSyncToken`), where the next incremental read starts.
 */
export interface EventsCursor {
  sync_token?: string;
  page_token?: string;
}

type Input = SourceInput<GoogleCalendarEventsConfig>;

/** A cursor this kind wrote; null starts a full listing. Anything else is expired: the calendar is read again. */
export function readCursor(raw: unknown): EventsCursor | null {
  if (raw === null || raw === undefined) return null;
  const c = raw as Record<string, unknown>;
  const token = (v: unknown) => v === undefined || (typeof v === 'string' && v.length > 0);
  if (typeof raw === 'object' && !Array.isArray(raw) && token(c.sync_token) && token(c.page_token) && (c.sync_token !== undefined || c.page_token !== undefined))
    return { ...(c.sync_token !== undefined ? { sync_token: c.sync_token as string } : {}), ...(c.page_token !== undefined ? { page_token: c.page_token as string } : {}) };
  throw new CursorExpired('The saved cursor is not one this source can go on from: the calendar is read again from the start.');
}

/** The configured calendar, trimmed (`primary` when left out); a blank one is refused by `check` and fails a read. */
function calendarIdOf(config: GoogleCalendarEventsConfig): string {
  return typeof config.calendar_id === 'string' ? config.calendar_id.trim() : DEFAULT_CALENDAR_ID;
}

function accessToken(input: Input): string {
  const token = input.credentials?.access_token;
  if (typeof token !== 'string' || !token) throw new SourceUnavailable('The connection gave no Google access token: connect the Google Calendar account again.');
  return token;
}

/**
 * What a failure of a call to Google means to the sources plugin. `withCursor`: the call carried a sync or page token
 * from an earlier read, so a 400 or 410 means Google no longer takes it (an expired sync token, a stale page token)
 * and the calendar is read again from the start. A message never carries the token.
 */
function failure(err: unknown, token: string, calendarId: string, signal: AbortSignal, withCursor: boolean): unknown {
  const scrub = (text: string) => withoutToken(text, token);
  if (signal.aborted) return new SourceUnavailable('The read was stopped before Google Calendar answered.');
  if (err instanceof SyncTokenExpired) return new CursorExpired(scrub(err.message));
  if (err instanceof TokenRejected)
    return new SourceUnavailable(scrub(`Google Calendar refused the connection's access token (HTTP 401: ${err.message}); the account may have withdrawn access: connect it again.`));
  if (err instanceof GoogleRefused) {
    if (err.status === 429 || (err.status === 403 && err.reason !== null && RATE_LIMIT_REASONS.has(err.reason))) {
      const seconds = err.retryAfterSeconds ?? DEFAULT_RATE_LIMIT_WAIT_S;
      return new RateLimited(seconds, `Google Calendar is limiting the rate of calls (HTTP ${err.status}${err.reason ? `, ${err.reason}` : ''}); it asks to wait ${seconds} s.`);
    }
    if (withCursor && (err.status === 400 || err.status === 410)) return new CursorExpired(scrub(`${err.message} The calendar is read again from the start.`));
    if (err.status === 404) return new SourceUnavailable(scrub(`${err.message} There is no calendar "${calendarId}" this connection's account can see.`));
    return new SourceUnavailable(scrub(err.message));
  }
  // GoogleUnreachable, and an argument the client would not send (a calendar id, a channel address).
  if (err instanceof ActionFailed) return new SourceUnavailable(scrub(err.message));
  return err;
}

/**
 * Reads a calendar's events a page (`PAGE_SIZE` events) at a time. Without a cursor, a full listing (every page
 * `snapshot: true`, cancelled events left out); with a sync token, what changed since (`snapshot: false`, deleted
 * events as deleted rows, `showDeleted=true` as Google's sync guide asks). Every page's cursor lets a stopped run go on
 * after it; the last one's is `{ sync_token: nextSyncToken }`. `orderBy` is never sent: Google refuses it with sync tokens.
 */
async function* readEvents(client: GoogleCalendarClient, input: Input & { cursor: unknown }): AsyncGenerator<SourcePage> {
  const token = accessToken(input);
  const calendarId = calendarIdOf(input.config);
  const singleEvents = input.config.single_events ?? true;
  const cursor = readCursor(input.cursor);
  const syncToken = cursor?.sync_token;
  const incremental = syncToken !== undefined;
  let pageToken = cursor?.page_token;
  for (;;) {
    if (input.signal.aborted) throw new SourceUnavailable('The read was stopped.');
    let page: EventPage;
    try {
      page = await client.listEvents(token, calendarId, {
        syncToken,
        pageToken,
        maxResults: PAGE_SIZE,
        singleEvents,
        ...(incremental ? { showDeleted: true } : {}),
        signal: input.signal,
      });
    } catch (err) {
      throw failure(err, token, calendarId, input.signal, syncToken !== undefined || pageToken !== undefined);
    }
    const rows = incremental
      ? page.events.map((event) => (event.status === 'cancelled' ? deletedRow(event) : eventRow(event)))
      : page.events.filter((event) => event.status !== 'cancelled').map(eventRow);
    if (page.nextPageToken) {
      if (page.nextPageToken === pageToken) throw new SourceUnavailable('Google Calendar answered the same page token twice; the read was stopped.');
      pageToken = page.nextPageToken;
      yield { rows, cursor: { ...(incremental ? { sync_token: syncToken } : {}), page_token: pageToken } satisfies EventsCursor, snapshot: !incremental };
      continue;
    }
    yield { rows, cursor: { sync_token: page.nextSyncToken! } satisfies EventsCursor, snapshot: !incremental };
    return;
  }
}

/** The channel a delivery of the `google-calendar` provider tells of changed events on; null for a channel's `sync` message. */
export function changedChannel(delivery: { event: string; payload: unknown }): string | null {
  // `events.exists` / `events.not_exists` as the provider names them (also under the `integration.google_calendar.` prefix).
  if (typeof delivery.event !== 'string' || !/(^|\.)events\.[a-z_]+$/.test(delivery.event)) return null;
  const channelId = (delivery.payload as { channel_id?: unknown } | null | undefined)?.channel_id;
  return typeof channelId === 'string' && channelId ? channelId : null;
}

/**
 * The `google_calendar.events` source kind: the events of one calendar, read through a `google-calendar` connection,
 * kept up to date with sync tokens and, when the sources plugin opens one, a push channel. Exported so tests use it
 * without a kernel.
 */
export function googleCalendarEventsKind(options: GoogleCalendarEventsKindOptions = {}): SourceKind<GoogleCalendarEventsConfig> {
  const client = new GoogleCalendarClient({ apiUrl: options.apiUrl ?? DEFAULT_API_URL, timeoutMs: options.timeoutMs });
  return {
    id: GOOGLE_CALENDAR_EVENTS_KIND,
    name: 'Google Calendar events',
    provider: 'google-calendar',
    configSchema: GoogleCalendarEventsConfig,

    /** Reads the calendar: one that does not exist (or the account cannot see) is refused at `/config/calendar_id`. */
    async check(input) {
      const calendarId = calendarIdOf(input.config);
      try {
        calendarSegment(calendarId);
      } catch (err) {
        throw new SourceRefused('/config/calendar_id', (err as Error).message);
      }
      const token = accessToken(input);
      try {
        await client.calendar(token, calendarId, { signal: input.signal });
      } catch (err) {
        if (err instanceof GoogleRefused && err.status === 404)
          throw new SourceRefused('/config/calendar_id', `Google Calendar has no calendar "${calendarId}" that this connection's account can see.`);
        throw failure(err, token, calendarId, input.signal, false);
      }
    },

    properties: async () => eventProperties(),

    read: (input) => readEvents(client, input),

    /** Opens a channel on the calendar's events (`events.watch`, `type: web_hook`) posting to the connection's receiver. */
    async watch(input): Promise<PushChannel> {
      const token = accessToken(input);
      const calendarId = calendarIdOf(input.config);
      try {
        const channel = await client.watch(token, calendarId, { id: input.channelId, address: input.address, token: input.token }, { signal: input.signal });
        return { id: channel.id, resourceId: channel.resourceId, expiresAt: new Date(channel.expiration ?? Date.now() + UNKNOWN_EXPIRY_MS) };
      } catch (err) {
        throw failure(err, token, calendarId, input.signal, false);
      }
    },

    /** Stops a channel (`channels.stop`); one Google no longer knows (404: expired, or stopped already) is no failure. */
    async unwatch(input): Promise<void> {
      // Google stops a channel by its id and resourceId; one opened without a resourceId cannot be stopped, only left to expire.
      if (!input.channel.resourceId) return;
      const token = accessToken(input);
      try {
        await client.stop(token, { id: input.channel.id, resourceId: input.channel.resourceId }, { signal: input.signal });
      } catch (err) {
        throw failure(err, token, calendarIdOf(input.config), input.signal, false);
      }
    },

    changedChannel,
  };
}
