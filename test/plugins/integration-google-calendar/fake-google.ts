import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const SECRET = 'whsec_the-connection-secret-0123456789';
export const TOKEN = 'ya29.a0AfB_byC-S3cretAccessToken0123456789abcdef';
export const EMAIL = 'ada@example.com';
export const UNAUTHENTICATED = { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } };
/** The OAuth client the end-to-end tests configure; the token endpoint takes no other. */
export const CLIENT_ID = '123-tessera.apps.googleusercontent.com';
export const CLIENT_SECRET = 'GOCSPX-tessera-client-secret';

export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export type Json = (status: number, body?: unknown, headers?: Record<string, string>) => void;
export type Handler = (req: http.IncomingMessage, body: unknown, json: Json) => void;

export type GoogleEvent = Record<string, unknown> & { id: string };

/** 5 events in the primary calendar, listed `maxResults` at a time; the last page carries the sync token. */
export const EVENTS: GoogleEvent[] = Array.from({ length: 5 }, (_, i) => ({ kind: 'calendar#event', id: `evt${i + 1}`, status: 'confirmed', summary: `Event ${i + 1}`, updated: '2025-03-01T10:00:00.000Z' }));

/** Google's error answer: `{ error: { code, message, errors: [{ domain, reason, message }] } }`. */
export function googleError(code: number, message: string, reason: string, domain = 'global') {
  return { error: { code, message, errors: [{ domain, reason, message }] } };
}

/**
 * One calendar as Google keeps it for syncs: its events, each stamped with the version at which it last changed. A
 * listing's `nextSyncToken` is `sync-<version>`; a read with one lists the events changed after that version
 * (cancelled ones included). Tokens older than `oldestSyncVersion` are expired (410).
 */
export class FakeCalendar {
  version = 1;
  oldestSyncVersion = 0;
  readonly events = new Map<string, { event: GoogleEvent; version: number }>();

  constructor(
    readonly id: string,
    readonly summary: string,
    events: GoogleEvent[] = [],
  ) {
    for (const event of events) this.events.set(event.id, { event: structuredClone(event), version: this.version });
  }

  /** Adds or changes an event (a new version). */
  put(event: GoogleEvent): void {
    this.version++;
    const before = this.events.get(event.id)?.event;
    this.events.set(event.id, { event: structuredClone({ kind: 'calendar#event', ...before, ...event, updated: new Date(Date.UTC(2025, 3, 1) + this.version * 1000).toISOString() }), version: this.version });
  }

  /** Deletes an event: Google keeps it, `status: cancelled`, for syncs to hear of. */
  cancel(id: string): void {
    const before = this.events.get(id);
    if (!before) throw new Error(`no event ${id}`);
    this.put({ ...before.event, status: 'cancelled' });
  }

  /** Every sync token given so far is no longer honoured (Google's 410): the next sync must start over. */
  expireSyncTokens(): void {
    this.oldestSyncVersion = this.version + 1;
  }
}

/** `FREQ=DAILY|WEEKLY;COUNT=n` of an event's `recurrence`: the only rules the fake expands. */
function instancesOf(master: GoogleEvent): GoogleEvent[] {
  const rule = (master.recurrence as string[] | undefined)?.find((r) => r.startsWith('RRULE:'));
  const match = rule && /FREQ=(DAILY|WEEKLY);COUNT=(\d+)/.exec(rule);
  if (!match) return [master];
  const step = (match[1] === 'DAILY' ? 1 : 7) * 86_400_000;
  const start = master.start as { dateTime: string };
  const end = master.end as { dateTime: string };
  const length = Date.parse(end.dateTime) - Date.parse(start.dateTime);
  return Array.from({ length: Number(match[2]) }, (_, i) => {
    const at = Date.parse(start.dateTime) + i * step;
    const stamp = new Date(at).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
    const { recurrence: _rule, ...rest } = master;
    return {
      ...rest,
      id: `${master.id}_${stamp}`,
      recurringEventId: master.id,
      originalStartTime: { dateTime: new Date(at).toISOString() },
      start: { dateTime: new Date(at).toISOString() },
      end: { dateTime: new Date(at + length).toISOString() },
    };
  });
}

export interface FakeGoogle {
  /** The Calendar API's root: `http://127.0.0.1:<port>/calendar/v3`. */
  url: string;
  /** The server's origin, where `/token` and `/revoke` answer as Google's OAuth endpoints. */
  origin: string;
  seen: Seen[];
  /** The calendars by id; `primary` is the signed-in user's (`ada@example.com`). */
  calendars: Map<string, FakeCalendar>;
  /** `calendars.get('primary')`. */
  readonly primary: FakeCalendar;
  /** Channels stopped (`channels.stop`), by id. */
  stopped: string[];
  /** Answers every request with `handler` instead (null: Google again). */
  respond: (handler: Handler | null) => void;
  close: () => Promise<void>;
}

const SYNC_FORBIDS = ['orderBy', 'timeMin', 'timeMax', 'updatedMin', 'q', 'iCalUID', 'privateExtendedProperty', 'sharedExtendedProperty'];

/**
 * A loopback server speaking the Calendar API v3 under `/calendar/v3` as Google does: the bearer token checked on
 * every call (401 with Google's error body otherwise), the primary calendar, calendars.get, an events list with pages,
 * sync tokens (an expired one is 410, a page token it never gave is 400), Google's refusals of parameters a sync
 * token forbids, `singleEvents` expanding simple recurrences, events.insert, events.watch and channels.stop. Beside
 * it, Google's OAuth token endpoint (`/token`, for the client above, handing out `TOKEN`). It records what it was sent.
 */
export async function fakeGoogle(): Promise<FakeGoogle> {
  const seen: Seen[] = [];
  const stopped: string[] = [];
  let override: Handler | null = null;
  const calendars = new Map<string, FakeCalendar>([['primary', new FakeCalendar(EMAIL, 'Ada Lovelace', EVENTS)]]);
  let serial = 0;

  const listEvents = (calendar: FakeCalendar, url: URL, json: Json) => {
    const q = url.searchParams;
    const syncToken = q.get('syncToken');
    const size = Number(q.get('maxResults') ?? 250);
    if (!Number.isInteger(size) || size < 1 || size > 2500) return json(400, googleError(400, 'Invalid value for maxResults', 'invalid'));
    if (syncToken !== null) {
      const forbidden = SYNC_FORBIDS.find((name) => q.has(name));
      if (forbidden) return json(400, googleError(400, `The ${forbidden} parameter cannot be used together with syncToken.`, 'invalid'));
      if (q.get('showDeleted') === 'false') return json(400, googleError(400, 'showDeleted cannot be false with syncToken.', 'invalid'));
      const since = /^sync-(\d+)$/.exec(syncToken);
      if (!since || Number(since[1]) < calendar.oldestSyncVersion)
        return json(410, googleError(410, 'Sync token is no longer valid, a full sync is required.', 'fullSyncRequired'));
    }
    const since = syncToken === null ? null : Number(syncToken.slice('sync-'.length));
    const showDeleted = syncToken !== null || q.get('showDeleted') === 'true';
    const single = q.get('singleEvents') === 'true';
    const items = [...calendar.events.values()]
      .filter((e) => since === null || e.version > since)
      .map((e) => e.event)
      // As Google documents it: cancelled instances of recurring events (not the series) are listed even without
      // showDeleted when singleEvents is false too.
      .filter((e) => showDeleted || e.status !== 'cancelled' || (!single && typeof e.recurringEventId === 'string'))
      .flatMap((e) => (single ? instancesOf(e) : [e]));
    const pageToken = q.get('pageToken');
    const page = pageToken === null ? null : /^p(\d+)$/.exec(pageToken);
    if (pageToken !== null && (!page || Number(page[1]) > items.length)) return json(400, googleError(400, 'Invalid Value', 'invalid'));
    const from = page ? Number(page[1]) : 0;
    const more = from + size < items.length;
    return json(200, {
      kind: 'calendar#events',
      summary: calendar.id,
      timeZone: 'Europe/London',
      items: items.slice(from, from + size),
      ...(more ? { nextPageToken: `p${from + size}` } : { nextSyncToken: `sync-${calendar.version}` }),
    });
  };

  const google: Handler = (req, body, json) => {
    const url = new URL(req.url ?? '/', 'http://google.test');
    const path = url.pathname;
    if (req.method === 'POST' && (path === '/token' || path === '/revoke')) {
      const form = new URLSearchParams(typeof body === 'string' ? body : '');
      if (form.get('client_id') !== CLIENT_ID || form.get('client_secret') !== CLIENT_SECRET) return json(401, { error: 'invalid_client' });
      if (path === '/revoke') return json(200);
      if (form.get('grant_type') !== 'authorization_code' && form.get('grant_type') !== 'refresh_token') return json(400, { error: 'unsupported_grant_type' });
      return json(200, { access_token: TOKEN, token_type: 'Bearer', expires_in: 3599, refresh_token: `1//refresh-${++serial}`, scope: 'https://www.googleapis.com/auth/calendar.readonly https://www.googleapis.com/auth/calendar.events' });
    }
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return json(401, UNAUTHENTICATED);
    if (req.method === 'GET' && path === '/calendar/v3/users/me/calendarList/primary')
      return json(200, { kind: 'calendar#calendarListEntry', id: EMAIL, summary: 'Ada Lovelace', timeZone: 'Europe/London', accessRole: 'owner', primary: true });
    const calendarPath = /^\/calendar\/v3\/calendars\/([^/]+)(\/events(?:\/watch)?)?$/.exec(path);
    const calendar = calendarPath ? calendars.get(decodeURIComponent(calendarPath[1])) : undefined;
    // events.insert takes any calendar the account may write to (the action's tests name several).
    if (req.method === 'POST' && calendarPath?.[2] === '/events') {
      const event = body as Record<string, unknown>;
      if (!event?.summary || !event.start || !event.end) return json(400, googleError(400, 'Missing end time.', 'required'));
      return json(200, { kind: 'calendar#event', id: 'c0ffee1234abcd', status: 'confirmed', htmlLink: 'https://www.google.com/calendar/event?eid=YzBmZmVlMTIzNGFiY2Q', created: '2025-03-01T10:00:00.000Z', ...event });
    }
    if (calendarPath && !calendar) return json(404, googleError(404, 'Not Found', 'notFound'));
    if (req.method === 'GET' && calendar && !calendarPath![2]) return json(200, { kind: 'calendar#calendar', id: calendar.id, summary: calendar.summary, timeZone: 'Europe/London' });
    if (req.method === 'GET' && calendar && calendarPath![2] === '/events') return listEvents(calendar, url, json);
    if (req.method === 'POST' && calendar && calendarPath![2] === '/events/watch') {
      const channel = body as { id: string; token: string };
      return json(200, { kind: 'api#channel', id: channel.id, resourceId: 'ret08u3rv24htgh289g', resourceUri: `https://www.googleapis.com/calendar/v3/calendars/${calendarPath![1]}/events?alt=json`, token: channel.token, expiration: '1900000000000' });
    }
    if (req.method === 'POST' && path === '/calendar/v3/channels/stop') {
      const id = (body as { id?: string }).id ?? '';
      if (id === 'gone' || stopped.includes(id)) return json(404, googleError(404, `Channel '${id}' not found for project '123456789'`, 'notFound'));
      stopped.push(id);
      return json(204);
    }
    return json(404, googleError(404, 'Not Found', 'notFound'));
  };

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const json: Json = (status, answer, headers = {}) => {
        if (answer === undefined) {
          res.writeHead(status, headers);
          res.end();
          return;
        }
        res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
        res.end(JSON.stringify(answer));
      };
      (override ?? google)(req, body, json);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/calendar/v3`,
    origin: `http://127.0.0.1:${port}`,
    seen,
    calendars,
    get primary() {
      return calendars.get('primary')!;
    },
    stopped,
    respond: (h) => void (override = h),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
