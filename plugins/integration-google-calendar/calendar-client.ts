/**
 * The calls this plugin makes to the Google Calendar API v3 (https://developers.google.com/calendar/api/v3/reference),
 * over `fetch`: the token as `Authorization: Bearer …`, JSON both ways, a timeout, answers read up to 1 MiB, redirects
 * not followed (the token goes to `apiUrl` and nowhere else), and failures whose messages never carry the token.
 *
 * How failures are thrown, for every method:
 * - Google's 401 (the access token is expired or revoked) → `TokenRejected`: the integrations plugin refreshes the
 *   token and calls once more;
 * - a 410 on `listEvents` (the sync token is no longer valid) → `SyncTokenExpired`: start a full sync over;
 * - any other refusal → `GoogleRefused` (an `ActionFailed`) with Google's status and message;
 * - no answer (refused connection, DNS, TLS, the timeout, the caller's signal aborted) → `GoogleUnreachable` (an
 *   `ActionFailed`);
 * - an argument that cannot be sent (an empty token, a calendar id such as `..`) → `ActionFailed`, nothing sent.
 */
import { ActionFailed, TokenRejected } from '../integrations/public.ts';
import { AnswerTooLarge, describeFailure, readCapped, redact } from '../integrations/public.ts';

const TIMEOUT_MS = 10_000;
/** Google's answers to what we ask are a few kilobytes (a calendar, a channel, an event); more is not read. */
const MAX_ANSWER_BYTES = 1024 * 1024;
/**
 * A page of events is larger: up to `maxResults` (250 for syncs) events, each with its description (up to 8 KiB of
 * HTML), attendees and conference data. A page past this is not read (the sync fails with why, rather than memory).
 */
const MAX_EVENT_PAGE_BYTES = 32 * 1024 * 1024;
const NAME = 'Google Calendar';

/** A channel id as Google allows it (`[A-Za-z0-9\-_\+/=]+`, at most 64 characters). */
const CHANNEL_ID = /^[A-Za-z0-9\-_+/=]{1,64}$/;

export interface CalendarClientOptions {
  /** The API's root, e.g. `https://www.googleapis.com/calendar/v3` (a trailing slash is fine). */
  apiUrl: string;
  timeoutMs?: number;
}

export interface GoogleAnswer {
  status: number;
  /** The answer parsed as JSON; undefined when it was empty or not JSON. */
  body: unknown;
  /** The `Retry-After` header as sent (Google's 429s may carry one); null without it. */
  retryAfter: string | null;
}

/** What every call may also take: the caller's abort signal (a sync run canceled), besides the client's timeout. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Google did not answer: no connection, a network error, no answer within the timeout, or an answer too large. */
export class GoogleUnreachable extends ActionFailed {}

/**
 * Google answered with a refusal other than 401: its HTTP status, its `error.reason` when it gave one, and the seconds
 * its `Retry-After` header asked to wait (null without one).
 */
export class GoogleRefused extends ActionFailed {
  constructor(
    message: string,
    readonly status: number,
    readonly reason: string | null,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

/**
 * Google answered 410 Gone to an events list: the sync token is no longer valid (too old, or invalidated by Google),
 * and the calendar must be read again from the start, without it. Deliberately not an `ActionFailed`: it is not a
 * failure to report but an instruction to start over. `code` lets a caller recognize it without importing the class.
 */
export class SyncTokenExpired extends Error {
  readonly code = 'full_sync_required';
}

/** A calendar entry of the signed-in user (`calendarList` resource). */
export interface CalendarListEntry {
  id: string;
  summary: string;
  timeZone: string | null;
}

/** One event as Google answers it (`Event` resource); the fields Tessera reads are typed, the rest kept as is. */
export interface CalendarEvent {
  id: string;
  status?: string;
  htmlLink?: string;
  summary?: string;
  updated?: string;
  [field: string]: unknown;
}

export interface ListEventsOptions {
  /** From the last page of the previous sync: only what changed since (deleted events included, `status: cancelled`). */
  syncToken?: string;
  /** From the previous page of this listing. */
  pageToken?: string;
  /** RFC 3339: events ending after it (a full sync's lower bound). Google refuses it together with `syncToken`. */
  timeMin?: string;
  /** Events per page, 1–2500 (Google's default is 250). */
  maxResults?: number;
  /** Recurring events expanded into their instances; must be the same for a full sync and the syncs that follow it. */
  singleEvents?: boolean;
  /**
   * Deleted events (`status: cancelled`) listed too. A read with a sync token lists deletions whatever it says (Google
   * refuses `false` there); a listing without one leaves them out unless it is true.
   */
  showDeleted?: boolean;
  /** Not sent: aborts the call (a sync run canceled). */
  signal?: AbortSignal;
}

/** One page of events: either another page follows (`nextPageToken`), or this is the last one (`nextSyncToken`). */
export interface EventPage {
  events: CalendarEvent[];
  nextPageToken: string | null;
  nextSyncToken: string | null;
}

export interface WatchRequest {
  /** Our id for the channel (`[A-Za-z0-9\-_\+/=]`, at most 64 characters), unique per channel. */
  id: string;
  /** The HTTPS address Google posts its notifications to. */
  address: string;
  /** The channel token Google sends back in every notification (`X-Goog-Channel-Token`): the connection's webhook secret. */
  token: string;
  /** How long the channel should live, in seconds; Google may give it less. */
  ttlSeconds?: number;
}

/** A channel Google opened: the watched resource's id (needed to stop it) and when it ends (ms since the epoch). */
export interface WatchChannel {
  id: string;
  resourceId: string;
  resourceUri: string | null;
  expiration: number | null;
}

/** An event to create: `start`/`end` as Google takes them (`{ dateTime, timeZone? }`, or `{ date }` for all-day). */
export interface NewEvent {
  summary: string;
  description?: string;
  start: { dateTime: string; timeZone?: string } | { date: string };
  end: { dateTime: string; timeZone?: string } | { date: string };
}

/**
 * Seconds a `Retry-After` header asks to wait (delta-seconds, or an HTTP date from `now`), at least 1; null when there
 * is none or it cannot be read.
 */
export function retryAfterSeconds(header: string | null | undefined, now = Date.now()): number | null {
  const value = header?.trim();
  if (!value) return null;
  if (/^[0-9]{1,9}$/.test(value)) return Math.max(1, Number(value));
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(1, Math.ceil((at - now) / 1000));
}

/** Removes the token from a text shown to people, wherever it may have crept in (an error repeating a header). */
export function withoutToken(text: string, token: string): string {
  return redact(text, [token], '[token]');
}

/**
 * Google's own sentence in an error answer: `{ error: { code, message, status, errors: [{ reason }] } }` from the API,
 * or `{ error, error_description }` from its OAuth layer.
 */
export function googleMessage(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const error = (body as { error?: unknown; error_description?: unknown }).error;
  const text = (value: unknown) => (typeof value === 'string' && value.trim() ? value.trim().slice(0, 500) : null);
  if (error && typeof error === 'object') return text((error as { message?: unknown }).message);
  return text((body as { error_description?: unknown }).error_description) ?? text(error);
}

/** The first `errors[].reason` of an API error answer (`insufficientPermissions`, `rateLimitExceeded`, `fullSyncRequired`…). */
function googleReason(body: unknown): string | null {
  const errors = (body as { error?: { errors?: unknown } } | undefined)?.error?.errors;
  const reason = Array.isArray(errors) ? (errors[0] as { reason?: unknown } | undefined)?.reason : undefined;
  return typeof reason === 'string' && reason ? reason.slice(0, 100) : null;
}

/**
 * A calendar id as one path segment. Ids are `primary`, an email address or `…@group.calendar.google.com`; whatever
 * is given is percent-encoded, so `/`, `?` and `#` stay inside the segment, and `.` and `..` (which a URL resolves
 * to another path whatever their encoding) are refused.
 */
export function calendarSegment(calendarId: unknown): string {
  if (typeof calendarId !== 'string' || !calendarId.trim()) throw new ActionFailed('The calendar id is empty.');
  const id = calendarId.trim();
  if (id.length > 1024) throw new ActionFailed('The calendar id is longer than 1024 characters.');
  if (/[\u0000-\u001f\u007f]/.test(id)) throw new ActionFailed('The calendar id has control characters.');
  if (id === '.' || id === '..') throw new ActionFailed(`"${id}" is not a calendar id.`);
  return encodeURIComponent(id);
}

const str = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);

export class GoogleCalendarClient {
  readonly apiUrl: string;
  private readonly timeoutMs: number;

  constructor(options: CalendarClientOptions) {
    const url = new URL(options.apiUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`Google Calendar's apiUrl must be an http(s) URL, not ${options.apiUrl}`);
    this.apiUrl = options.apiUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  }

  /**
   * Sends one request to `{apiUrl}{path}` with the token, and answers with whatever status Google gave. Throws
   * `ActionFailed` before sending a token that cannot be sent, `GoogleUnreachable` when no answer came (or `signal`
   * stopped the call). An answer over `maxBytes` (default 1 MiB) is not read.
   */
  async request(
    token: string,
    method: string,
    path: string,
    input: { query?: Record<string, string | undefined>; body?: unknown; signal?: AbortSignal; maxBytes?: number } = {},
  ): Promise<GoogleAnswer> {
    const bearer = typeof token === 'string' ? token.trim() : '';
    if (!bearer) throw new ActionFailed('The access token is empty.');
    // Checked here so that fetch never rejects a header with an error message that repeats its value.
    if (!/^[\x21-\x7e]+$/.test(bearer)) throw new ActionFailed('The access token has characters no Google token has (spaces, line breaks or non-ASCII characters).');
    const url = new URL(`${this.apiUrl}/${path.replace(/^\/+/, '')}`);
    for (const [name, value] of Object.entries(input.query ?? {})) if (value !== undefined) url.searchParams.set(name, value);
    const headers: Record<string, string> = { Authorization: `Bearer ${bearer}`, Accept: 'application/json' };
    if (input.body !== undefined) headers['Content-Type'] = 'application/json';
    const maxBytes = input.maxBytes ?? MAX_ANSWER_BYTES;
    if (input.signal?.aborted) throw new GoogleUnreachable(`The call to ${NAME} was stopped before it was sent.`);
    const timeout = AbortSignal.timeout(this.timeoutMs);
    try {
      const res = await fetch(url, {
        method,
        headers,
        body: input.body === undefined ? undefined : JSON.stringify(input.body),
        redirect: 'manual',
        signal: input.signal ? AbortSignal.any([input.signal, timeout]) : timeout,
      });
      const text = await readCapped(res, maxBytes, `${NAME}'s answer was larger than ${maxBytes} bytes and was not read.`);
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed, retryAfter: res.headers.get('retry-after') };
    } catch (err) {
      if (err instanceof AnswerTooLarge) throw new GoogleUnreachable(err.message);
      if (input.signal?.aborted && !timeout.aborted) throw new GoogleUnreachable(`The call to ${NAME} was stopped before it was answered.`);
      throw new GoogleUnreachable(withoutToken(`${NAME} could not be reached: ${describeFailure(err, this.timeoutMs)}`, bearer));
    }
  }

  /** The signed-in user's primary calendar (its id is the user's email address). */
  async primaryCalendar(token: string): Promise<CalendarListEntry> {
    const body = await this.call(token, 'GET', '/users/me/calendarList/primary', {}, 'read the primary calendar');
    const id = str(body.id);
    if (!id) throw new GoogleRefused(`${this.apiUrl}/users/me/calendarList/primary answered without a calendar: check that apiUrl is the root of the Calendar API.`, 200, null);
    return { id, summary: str(body.summary) ?? id, timeZone: str(body.timeZone) };
  }

  /**
   * A calendar the token can read (`GET /calendars/{id}`): its id and summary. 404 when there is no such calendar, or
   * none the account may see (a `GoogleRefused` with that status).
   */
  async calendar(token: string, calendarId: string, options: CallOptions = {}): Promise<CalendarListEntry> {
    const body = await this.call(token, 'GET', `/calendars/${calendarSegment(calendarId)}`, { signal: options.signal }, 'read the calendar');
    const id = str(body.id);
    if (!id) throw new GoogleRefused(`${NAME} answered without a calendar: check that apiUrl is the root of the Calendar API.`, 200, null);
    return { id, summary: str(body.summary) ?? id, timeZone: str(body.timeZone) };
  }

  /**
   * One page of a calendar's events (`GET /calendars/{id}/events`). Pass the page token of the previous page to read
   * on; the last page carries `nextSyncToken`, to be passed as `syncToken` next time for what changed since. A 410
   * (the sync token is stale) throws `SyncTokenExpired`.
   */
  async listEvents(token: string, calendarId: string, options: ListEventsOptions = {}): Promise<EventPage> {
    if (options.syncToken && options.timeMin) throw new Error('listEvents: Google refuses timeMin together with syncToken; a sync token already says where to start.');
    if (options.maxResults !== undefined && !(Number.isInteger(options.maxResults) && options.maxResults >= 1 && options.maxResults <= 2500))
      throw new Error('listEvents: maxResults is a whole number from 1 to 2500.');
    const query = {
      syncToken: options.syncToken,
      pageToken: options.pageToken,
      timeMin: options.timeMin,
      maxResults: options.maxResults === undefined ? undefined : String(options.maxResults),
      singleEvents: options.singleEvents === undefined ? undefined : String(options.singleEvents),
      showDeleted: options.showDeleted === undefined ? undefined : String(options.showDeleted),
    };
    const request = { query, signal: options.signal, maxBytes: MAX_EVENT_PAGE_BYTES };
    const body = await this.call(token, 'GET', `/calendars/${calendarSegment(calendarId)}/events`, request, 'list the events', (status, answer) => {
      if (status === 410) return new SyncTokenExpired(`${NAME} no longer knows this sync token (${googleMessage(answer) ?? '410 Gone'}): read the calendar again from the start.`);
      return null;
    });
    const items = body.items ?? [];
    if (!Array.isArray(items)) throw new GoogleRefused(`${NAME} answered an events list without items: check that apiUrl is the root of the Calendar API.`, 200, null);
    const nextPageToken = str(body.nextPageToken);
    const nextSyncToken = str(body.nextSyncToken);
    if (!nextPageToken && !nextSyncToken) throw new GoogleRefused(`${NAME} answered an events list with neither a next page nor a sync token.`, 200, null);
    return { events: items.filter((e): e is CalendarEvent => !!e && typeof e === 'object' && typeof (e as { id?: unknown }).id === 'string'), nextPageToken, nextSyncToken };
  }

  /**
   * Every page of a listing, one at a time, until the one carrying `nextSyncToken`: the options (a sync token, say)
   * are sent with each page, as Google's sync guide does, with the page token of the page before.
   */
  async *eventPages(token: string, calendarId: string, options: Omit<ListEventsOptions, 'pageToken'> = {}): AsyncGenerator<EventPage> {
    let pageToken: string | undefined;
    for (;;) {
      const page = await this.listEvents(token, calendarId, { ...options, pageToken });
      yield page;
      if (!page.nextPageToken) return;
      if (page.nextPageToken === pageToken) throw new GoogleRefused(`${NAME} answered the same page token twice; the listing was stopped.`, 200, null);
      pageToken = page.nextPageToken;
    }
  }

  /**
   * Opens a push channel on a calendar's events (`POST /calendars/{id}/events/watch`, `type: web_hook`): Google posts
   * to `address` whenever they change, with `token` in `X-Goog-Channel-Token`.
   */
  async watch(token: string, calendarId: string, channel: WatchRequest, options: CallOptions = {}): Promise<WatchChannel> {
    if (!CHANNEL_ID.test(channel.id)) throw new ActionFailed('A channel id is 1 to 64 of A–Z a–z 0–9 - _ + / =.');
    let address: URL;
    try {
      address = new URL(channel.address);
    } catch {
      throw new ActionFailed('The channel address is not a URL.');
    }
    if (address.protocol !== 'https:') throw new ActionFailed('Google posts notifications to HTTPS addresses only.');
    if (typeof channel.token !== 'string' || channel.token.length === 0 || channel.token.length > 256) throw new ActionFailed('A channel token is 1 to 256 characters.');
    if (channel.ttlSeconds !== undefined && !(Number.isInteger(channel.ttlSeconds) && channel.ttlSeconds > 0)) throw new ActionFailed('ttlSeconds is a positive whole number.');
    const body = await this.call(
      token,
      'POST',
      `/calendars/${calendarSegment(calendarId)}/events/watch`,
      {
        body: {
          id: channel.id,
          type: 'web_hook',
          address: channel.address,
          token: channel.token,
          ...(channel.ttlSeconds !== undefined ? { params: { ttl: String(channel.ttlSeconds) } } : {}),
        },
        signal: options.signal,
      },
      'open a notification channel',
    );
    const resourceId = str(body.resourceId);
    if (!resourceId) throw new GoogleRefused(`${NAME} opened no channel (its answer has no resourceId).`, 200, null);
    // Google gives the expiration as a string of milliseconds since the epoch (an int64).
    const expiration = Number(body.expiration);
    return { id: str(body.id) ?? channel.id, resourceId, resourceUri: str(body.resourceUri), expiration: body.expiration !== undefined && Number.isFinite(expiration) ? expiration : null };
  }

  /**
   * Stops a channel (`POST /channels/stop`), with the credentials that opened it. Answers false when Google no longer
   * knows it (404: it expired or was stopped already).
   */
  async stop(token: string, channel: { id: string; resourceId: string }, options: CallOptions = {}): Promise<boolean> {
    if (!str(channel.id) || !str(channel.resourceId)) throw new ActionFailed('Stopping a channel takes its id and resourceId.');
    let gone = false;
    const request = { body: { id: channel.id, resourceId: channel.resourceId }, signal: options.signal };
    await this.call(token, 'POST', '/channels/stop', request, 'stop the notification channel', (status) => {
      if (status !== 404) return null;
      gone = true;
      return 'answer';
    });
    return !gone;
  }

  /** Creates an event (`POST /calendars/{id}/events`) and answers it as Google stored it. */
  async insertEvent(token: string, calendarId: string, event: NewEvent): Promise<CalendarEvent> {
    const body = await this.call(token, 'POST', `/calendars/${calendarSegment(calendarId)}/events`, { body: event }, 'create the event');
    if (!str(body.id)) throw new GoogleRefused(`${NAME} answered without the created event: check that apiUrl is the root of the Calendar API.`, 200, null);
    return body as CalendarEvent;
  }

  /**
   * A call whose 2xx answer is read as a JSON object (an empty 204 reads as `{}`). `special` may turn a status into an
   * error of its own, or into `'answer'` to take it as it is.
   */
  private async call(
    token: string,
    method: string,
    path: string,
    input: { query?: Record<string, string | undefined>; body?: unknown; signal?: AbortSignal; maxBytes?: number },
    what: string,
    special?: (status: number, body: unknown) => Error | 'answer' | null,
  ): Promise<Record<string, unknown>> {
    const answer = await this.request(token, method, path, input);
    const scrub = (text: string) => withoutToken(text, token);
    const ok = answer.status >= 200 && answer.status < 300;
    if (!ok) {
      const instead = special?.(answer.status, answer.body);
      if (instead instanceof Error) {
        instead.message = scrub(instead.message);
        throw instead;
      }
      if (instead !== 'answer') throw this.refusal(answer, what, scrub);
    }
    const body = answer.body;
    if (body === undefined && (answer.status === 204 || !ok)) return {};
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new GoogleRefused(`${this.apiUrl}${path} did not answer with JSON: check that apiUrl is the root of the Calendar API.`, answer.status, null);
    return body as Record<string, unknown>;
  }

  private refusal(answer: GoogleAnswer, what: string, scrub: (text: string) => string): Error {
    const message = googleMessage(answer.body);
    if (answer.status === 401) return new TokenRejected(scrub(message ?? `${NAME} refused the access token (401).`));
    if (answer.status >= 300 && answer.status < 400) return new GoogleRefused(`${NAME} answered with a redirect (${answer.status}), which is not followed: check apiUrl.`, answer.status, null);
    return new GoogleRefused(
      scrub(`${NAME} refused to ${what} (HTTP ${answer.status}${message ? `: ${message}` : ''}).`),
      answer.status,
      googleReason(answer.body),
      retryAfterSeconds(answer.retryAfter),
    );
  }
}
