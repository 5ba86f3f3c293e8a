import assert from 'node:assert/strict';
import { compile } from '../../../core/schema.ts';
import { refused, type InboundDelivery } from '../../../plugins/integrations/public.ts';
import { CursorExpired, RateLimited, SourceRefused, SourceUnavailable, type SourceInput, type SourcePage } from '../../../plugins/sources/public.ts';
import { googleCalendarEventsKind, PAGE_SIZE } from '../../../plugins/integration-google-calendar/events-kind.ts';
import { readGoogleCalendarNotification } from '../../../plugins/integration-google-calendar/provider.ts';
import type { GoogleCalendarEventsConfig } from '../../../plugins/integration-google-calendar/schemas.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';
import { EMAIL, fakeGoogle, FakeCalendar, googleError, SECRET, TOKEN, type FakeGoogle, type GoogleEvent } from './fake-google.ts';
import { assertCellsAccepted } from '../sources/cells-accepted.ts';

type ReadInput = SourceInput<GoogleCalendarEventsConfig> & { cursor: unknown };

function input(config: GoogleCalendarEventsConfig = {}, more: Partial<ReadInput> = {}): ReadInput {
  return {
    config,
    credentials: { access_token: TOKEN },
    signal: new AbortController().signal,
    allowPrivateNetworks: false,
    now: new Date('2025-03-05T12:00:00Z'),
    cursor: null,
    ...more,
  };
}

const ADDRESS = 'https://tessera.example/api/v1/integrations/google-calendar/webhook/8c1f6f5e-2b7a-4d3e-9f00-1a2b3c4d5e6f';

/** A timed event on 10 March 2025 at `hour` (UTC), as Google answers it: an offset on the times, its time zone beside. */
function timed(id: string, hour: number, more: Partial<GoogleEvent> = {}): GoogleEvent {
  const at = (h: number) => `2025-03-10T${String(h + 1).padStart(2, '0')}:00:00+01:00`;
  return { kind: 'calendar#event', id, status: 'confirmed', summary: `Event ${id}`, updated: '2025-03-01T10:00:00.000Z', start: { dateTime: at(hour), timeZone: 'Europe/Paris' }, end: { dateTime: at(hour + 1), timeZone: 'Europe/Paris' }, ...more };
}

const query = (url: string) => Object.fromEntries(new URL(url, 'http://x').searchParams);
const keys = (pages: SourcePage[]) => pages.flatMap((p) => p.rows.map((r) => r.key));

describe('integration-google-calendar: the google_calendar.events kind', () => {
  storageIndependent();
  let google: FakeGoogle;
  let kind: ReturnType<typeof googleCalendarEventsKind>;
  beforeEach(async () => {
    google = await fakeGoogle();
    kind = googleCalendarEventsKind({ apiUrl: google.url, timeoutMs: 2000 });
  });
  afterEach(async () => {
    await google.close();
  });

  const lists = () => google.seen.filter((s) => s.method === 'GET' && /\/events(\?|$)/.test(s.url));

  async function readPages(given: ReadInput): Promise<SourcePage[]> {
    const pages: SourcePage[] = [];
    for await (const page of kind.read(given)) pages.push(page);
    return pages;
  }

  async function failing<T extends Error>(promise: Promise<unknown>, type: new (...args: any[]) => T): Promise<T> {
    try {
      await promise;
    } catch (err) {
      assert.ok(err instanceof type, `expected ${type.name}, got ${err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err)}`);
      assert.ok(!err.message.includes(TOKEN), err.message);
      return err;
    }
    return assert.fail(`expected ${type.name}, it succeeded`);
  }

  const readError = <T extends Error>(given: ReadInput, type: new (...args: any[]) => T) => failing(readPages(given), type);

  
  describe('declaration', () => {
    it('is google_calendar.events through a google-calendar connection, with the push parts', () => {
      assert.equal(kind.id, 'google_calendar.events');
      assert.equal(kind.name, 'Google Calendar events');
      assert.equal(kind.provider, 'google-calendar');
      for (const part of ['check', 'watch', 'unwatch', 'changedChannel'] as const) assert.equal(typeof kind[part], 'function', part);
    });

    it('declares the properties: types, exactly one unique (the event id), status choices by Google\'s own words', async () => {
      const properties = await kind.properties(input());
      assert.deepEqual(
        properties.map((p) => [p.key, p.type]),
        [
          ['id', 'text'], ['summary', 'text'], ['description', 'long_text'], ['location', 'text'], ['start', 'datetime'], ['end', 'datetime'],
          ['all_day', 'checkbox'], ['status', 'single_select'], ['organizer', 'email'], ['attendees', 'long_text'], ['html_link', 'url'],
          ['recurring_event_id', 'text'], ['updated', 'datetime'],
        ],
      );
      assert.deepEqual(properties.filter((p) => p.unique).map((p) => p.key), ['id']);
      const status = properties.find((p) => p.key === 'status')!;
      assert.deepEqual((status.options as { choices: Array<{ label: string }> }).choices.map((c) => c.label), ['confirmed', 'tentative', 'cancelled']);
      // Asking for them costs no call to Google.
      assert.equal(google.seen.length, 0);
    });

    it('takes a config of a calendar id (default primary) and single_events (default true), nothing else', () => {
      const validate = compile(kind.configSchema);
      const config: Record<string, unknown> = {};
      assert.equal(validate(config), true);
      assert.deepEqual(config, { calendar_id: 'primary', single_events: true });
      assert.equal(validate({ calendar_id: 'team@group.calendar.google.com', single_events: false }), true);
      for (const bad of [
        { calendar_id: '' },
        { calendar_id: '.' },
        { calendar_id: '..' },
        { calendar_id: 'a\nb' },
        { calendar_id: 'x'.repeat(1025) },
        { single_events: 'yes' },
        { calendar_id: 'primary', order_by: 'startTime' },
        { access_token: TOKEN },
      ])
        assert.equal(validate(bad), false, JSON.stringify(bad).slice(0, 60));
    });
  });

  describe('check', () => {
    it('reads the calendar (calendars.get), percent-encoding its id', async () => {
      google.calendars.set('team@group.calendar.google.com', new FakeCalendar('team@group.calendar.google.com', 'Team'));
      await kind.check!(input());
      await kind.check!(input({ calendar_id: 'team@group.calendar.google.com' }));
      assert.deepEqual(google.seen.map((s) => [s.method, s.url, s.headers.authorization]), [
        ['GET', '/calendar/v3/calendars/primary', `Bearer ${TOKEN}`],
        ['GET', '/calendar/v3/calendars/team%40group.calendar.google.com', `Bearer ${TOKEN}`],
      ]);
    });

    it('refuses a calendar Google does not know (404) at /config/calendar_id, and `..` before asking', async () => {
      const missing = await failing(kind.check!(input({ calendar_id: 'nobody@example.com' })), SourceRefused);
      assert.equal(missing.pointer, '/config/calendar_id');
      assert.match(missing.detail, /no calendar "nobody@example\.com"/);
      const dots = await failing(kind.check!(input({ calendar_id: ' .. ' })), SourceRefused);
      assert.equal(dots.pointer, '/config/calendar_id');
      const blank = await failing(kind.check!(input({ calendar_id: '   ' })), SourceRefused);
      assert.equal(blank.pointer, '/config/calendar_id');
      assert.equal(google.seen.length, 1);
    });

    it('is SourceUnavailable for a refused token (401) or a forbidden calendar (403), naming no token', async () => {
      const rejected = await failing(kind.check!(input({}, { credentials: { access_token: 'ya29.revoked-token-value' } })), SourceUnavailable);
      assert.match(rejected.message, /refused the connection's access token \(HTTP 401: Request had invalid authentication credentials\.\)/);
      assert.ok(!rejected.message.includes('ya29.revoked-token-value'));
      google.respond((_req, _body, json) => json(403, googleError(403, `Forbidden for ${TOKEN}`, 'forbidden')));
      const forbidden = await failing(kind.check!(input()), SourceUnavailable);
      assert.match(forbidden.message, /HTTP 403: Forbidden for \[token\]/);
      await failing(kind.check!(input({}, { credentials: null })), SourceUnavailable);
    });
  });

  describe('read: a full listing', () => {
    /** 600 events, every 40th deleted, and 10 cancelled instances of a recurring event (which Google lists anyway). */
    function bigCalendar(): { listed: string[] } {
      const events: GoogleEvent[] = Array.from({ length: 600 }, (_, i) => timed(`ev${String(i).padStart(3, '0')}`, i % 20, i % 40 === 39 ? { status: 'cancelled' } : {}));
      for (let i = 0; i < 10; i++) events.splice(i * 55, 0, { kind: 'calendar#event', id: `series_2025031${i}T090000Z`, status: 'cancelled', recurringEventId: 'series', originalStartTime: { dateTime: `2025-03-1${i}T09:00:00Z` } });
      google.calendars.set('primary', new FakeCalendar(EMAIL, 'Ada Lovelace', events));
      return { listed: events.filter((e) => e.status !== 'cancelled').map((e) => e.id) };
    }

    it('follows nextPageToken over 3 pages to the nextSyncToken: snapshot, every event once, cancelled ones left out', async () => {
      const { listed } = bigCalendar();
      const pages = await readPages(input({ single_events: false }));
      assert.equal(pages.length, 3);
      assert.deepEqual(pages.map((p) => p.snapshot), [true, true, true]);
      assert.deepEqual(pages.map((p) => p.cursor), [{ page_token: 'p250' }, { page_token: 'p500' }, { sync_token: 'sync-1' }]);
      assert.deepEqual(keys(pages), listed);
      assert.equal(new Set(keys(pages)).size, listed.length);
      assert.ok(pages.flatMap((p) => p.rows).every((r) => !r.deleted && r.values.status === 'confirmed'));
      // Google listed the cancelled instances; the kind did not make rows of them.
      assert.ok(pages[0].rows.length < PAGE_SIZE);

      const asked = lists();
      assert.equal(asked.length, 3);
      assert.equal(new URL(asked[0].url, 'http://x').pathname, '/calendar/v3/calendars/primary/events');
      assert.deepEqual(query(asked[0].url), { maxResults: '250', singleEvents: 'false' });
      assert.deepEqual(query(asked[1].url), { maxResults: '250', singleEvents: 'false', pageToken: 'p250' });
      assert.deepEqual(query(asked[2].url), { maxResults: '250', singleEvents: 'false', pageToken: 'p500' });
      assert.ok(asked.every((s) => s.headers.authorization === `Bearer ${TOKEN}`));
      assertCellsAccepted(await kind.properties(input()), pages.flatMap((p) => p.rows));
    });

    it('resumed from a middle page\'s cursor, reads exactly the rest', async () => {
      bigCalendar();
      const all = await readPages(input({ single_events: false }));
      google.seen.length = 0;
      const rest = await readPages(input({ single_events: false }, { cursor: all[0].cursor }));
      assert.equal(rest.length, 2);
      assert.deepEqual(keys(rest), keys(all.slice(1)));
      assert.deepEqual(rest.map((p) => [p.cursor, p.snapshot]), [[{ page_token: 'p500' }, true], [{ sync_token: 'sync-1' }, true]]);
      assert.deepEqual(query(lists()[0].url), { maxResults: '250', singleEvents: 'false', pageToken: 'p250' });
    });

    it('gives one empty snapshot page for an empty calendar, carrying the sync token', async () => {
      google.calendars.set('primary', new FakeCalendar(EMAIL, 'Empty'));
      const pages = await readPages(input());
      assert.deepEqual(pages, [{ rows: [], cursor: { sync_token: 'sync-1' }, snapshot: true }]);
    });

    it('expands recurring events into instances with single_events (the default), one row per series without', async () => {
      const series = timed('weekly', 9, { summary: 'Weekly', recurrence: ['RRULE:FREQ=WEEKLY;COUNT=3'] });
      google.calendars.set('primary', new FakeCalendar(EMAIL, 'Ada', [series]));
      const instances = (await readPages(input())).flatMap((p) => p.rows);
      assert.deepEqual(instances.map((r) => [r.key, r.values.start, r.values.recurring_event_id]), [
        ['weekly_20250310T090000Z', '2025-03-10T09:00:00.000Z', 'weekly'],
        ['weekly_20250317T090000Z', '2025-03-17T09:00:00.000Z', 'weekly'],
        ['weekly_20250324T090000Z', '2025-03-24T09:00:00.000Z', 'weekly'],
      ]);
      assert.equal(query(lists()[0].url).singleEvents, 'true');
      const masters = (await readPages(input({ single_events: false }))).flatMap((p) => p.rows);
      assert.deepEqual(masters.map((r) => [r.key, r.values.recurring_event_id]), [['weekly', null]]);
      assertCellsAccepted(await kind.properties(input()), [...instances, ...masters]);
    });
  });

  describe('read: values', () => {
    it('turns every field of an event into a value its field type accepts: UTC instants, all-day at 00:00 UTC, emails, a link', async () => {
      google.calendars.set('primary', new FakeCalendar(EMAIL, 'Ada', [
        timed('kickoff', 8, {
          summary: 'Project kickoff',
          description: '<b>Agenda</b>\n1. Scope',
          location: 'Room 4.01, Main St',
          status: 'tentative',
          htmlLink: 'https://www.google.com/calendar/event?eid=a2lja29mZg',
          organizer: { email: 'grace@example.com', displayName: 'Grace' },
          attendees: [
            { email: 'ada@example.com', responseStatus: 'accepted', self: true },
            { email: 'c_1888@resource.calendar.google.com', displayName: 'Room 4.01', resource: true },
            { email: 'grace@example.com', organizer: true },
            { displayName: 'No address' },
          ],
          updated: '2025-03-02T10:15:30.123Z',
        }),
        {
          kind: 'calendar#event',
          id: 'offsite',
          status: 'confirmed',
          summary: 'Offsite',
          start: { date: '2025-06-02' },
          end: { date: '2025-06-04' },
          updated: '2025-03-01T09:00:00Z',
          htmlLink: 'ftp://not.a.link/for/a/url/field',
          organizer: { displayName: 'Team calendar' },
        },
        { kind: 'calendar#event', id: 'odd', status: 'mystery', summary: 'Odd\u0000 one', start: { dateTime: '2025-03-10T09:00:00' }, end: { date: '2025-02-30' }, updated: 'yesterday', recurringEventId: 'series', description: 'x'.repeat(100_010) },
      ]));
      const rows = (await readPages(input())).flatMap((p) => p.rows);
      assert.deepEqual(rows[0], {
        key: 'kickoff',
        values: {
          id: 'kickoff',
          summary: 'Project kickoff',
          description: '<b>Agenda</b>\n1. Scope',
          location: 'Room 4.01, Main St',
          start: '2025-03-10T08:00:00.000Z',
          end: '2025-03-10T09:00:00.000Z',
          all_day: false,
          status: 'tentative',
          organizer: 'grace@example.com',
          attendees: 'ada@example.com, grace@example.com',
          html_link: 'https://www.google.com/calendar/event?eid=a2lja29mZg',
          recurring_event_id: null,
          updated: '2025-03-02T10:15:30.123Z',
        },
      });
      assert.deepEqual(rows[1].values, {
        id: 'offsite',
        summary: 'Offsite',
        description: null,
        location: null,
        // Google's all-day end is exclusive: the 2nd and 3rd of June.
        start: '2025-06-02T00:00:00.000Z',
        end: '2025-06-04T00:00:00.000Z',
        all_day: true,
        status: 'confirmed',
        organizer: null,
        attendees: null,
        html_link: null,
        recurring_event_id: null,
        updated: '2025-03-01T09:00:00.000Z',
      });
      const odd = rows[2].values;
      assert.deepEqual(
        [odd.summary, odd.start, odd.end, odd.all_day, odd.status, odd.updated, odd.recurring_event_id, (odd.description as string).length],
        ['Odd one', null, null, false, null, null, 'series', 100_000],
      );
      assertCellsAccepted(await kind.properties(input()), rows);
    });
  });

  describe('read: incremental, with the sync token', () => {
    it('lists what changed since: changed and new events as rows, cancelled ones deleted; not a snapshot', async () => {
      google.calendars.set('primary', new FakeCalendar(EMAIL, 'Ada', [timed('a', 8), timed('b', 9), timed('c', 10)]));
      const first = await readPages(input());
      assert.deepEqual(first.at(-1)!.cursor, { sync_token: 'sync-1' });
      google.primary.put({ id: 'b', summary: 'B (moved)', start: { dateTime: '2025-03-11T09:00:00Z' }, end: { dateTime: '2025-03-11T10:00:00Z' } });
      google.primary.put(timed('d', 12));
      google.primary.cancel('c');
      google.seen.length = 0;

      const pages = await readPages(input({}, { cursor: first.at(-1)!.cursor }));
      assert.equal(pages.length, 1);
      assert.equal(pages[0].snapshot, false);
      assert.deepEqual(pages[0].cursor, { sync_token: 'sync-4' });
      const rows = pages[0].rows;
      assert.deepEqual(rows.map((r) => [r.key, r.deleted ?? false]), [['b', false], ['c', true], ['d', false]]);
      assert.deepEqual(rows[1], { key: 'c', values: {}, deleted: true });
      assert.equal(rows[0].values.summary, 'B (moved)');
      assert.equal(rows[0].values.start, '2025-03-11T09:00:00.000Z');
      assert.deepEqual(query(lists()[0].url), { syncToken: 'sync-1', maxResults: '250', singleEvents: 'true', showDeleted: 'true' });
      assertCellsAccepted(await kind.properties(input()), rows);

      // Nothing changed since: one empty page, the same token.
      const quiet = await readPages(input({}, { cursor: pages[0].cursor }));
      assert.deepEqual(quiet, [{ rows: [], cursor: { sync_token: 'sync-4' }, snapshot: false }]);
    });

    it('pages keep the read\'s sync token beside the page token, so a stopped run goes on from the middle', async () => {
      google.calendars.set('primary', new FakeCalendar(EMAIL, 'Ada'));
      // 300 events added since sync-1: versions 2 to 301.
      for (let i = 0; i < 300; i++) google.primary.put(timed(`n${i}`, i % 20));
      const pages = await readPages(input({}, { cursor: { sync_token: 'sync-1' } }));
      assert.deepEqual(pages.map((p) => [p.cursor, p.snapshot, p.rows.length]), [
        [{ sync_token: 'sync-1', page_token: 'p250' }, false, 250],
        [{ sync_token: 'sync-301' }, false, 50],
      ]);
      assert.deepEqual(query(lists()[1].url), { syncToken: 'sync-1', pageToken: 'p250', maxResults: '250', singleEvents: 'true', showDeleted: 'true' });
      google.seen.length = 0;
      const rest = await readPages(input({}, { cursor: pages[0].cursor }));
      assert.deepEqual(keys(rest), keys(pages.slice(1)));
      assert.deepEqual(rest.map((p) => p.cursor), [{ sync_token: 'sync-301' }]);
      assert.equal(lists().length, 1);
    });

    it('throws CursorExpired when Google no longer honours the sync token (410), or a page token on resume (400)', async () => {
      google.primary.expireSyncTokens();
      const expired = await readError(input({}, { cursor: { sync_token: 'sync-1' } }), CursorExpired);
      assert.match(expired.message, /Sync token is no longer valid/);
      await readError(input({}, { cursor: { sync_token: 'sync-1', page_token: 'p250' } }), CursorExpired);
      const stale = await readError(input({}, { cursor: { page_token: 'p99999' } }), CursorExpired);
      assert.match(stale.message, /HTTP 400: Invalid Value/);
      // Google's 410 for a stale page token is taken the same way.
      google.respond((_req, _body, json) => json(410, googleError(410, 'Resource has been deleted', 'deleted')));
      await readError(input({}, { cursor: { page_token: 'p250' } }), CursorExpired);
    });

    it('throws CursorExpired for a cursor it did not write, before asking Google', async () => {
      for (const cursor of ['sync-1', 42, [], {}, { sync_token: 7 }, { page_token: '' }, { after_key: 'x' }]) await readError(input({}, { cursor }), CursorExpired);
      assert.equal(google.seen.length, 0);
    });
  });

  describe('read: failures', () => {
    it('turns a 429 into RateLimited with Retry-After\'s seconds (30 without), and Google\'s 403 rate limits too', async () => {
      google.respond((_req, _body, json) => json(429, googleError(429, 'Rate Limit Exceeded', 'rateLimitExceeded'), { 'retry-after': '120' }));
      assert.equal((await readError(input(), RateLimited)).seconds, 120);
      google.respond((_req, _body, json) => json(429, googleError(429, 'Rate Limit Exceeded', 'rateLimitExceeded')));
      assert.equal((await readError(input(), RateLimited)).seconds, 30);
      google.respond((_req, _body, json) => json(403, googleError(403, 'Rate Limit Exceeded', 'rateLimitExceeded', 'usageLimits')));
      assert.equal((await readError(input(), RateLimited)).seconds, 30);
      google.respond((_req, _body, json) => json(403, googleError(403, 'User Rate Limit Exceeded', 'userRateLimitExceeded', 'usageLimits'), { 'retry-after': new Date(Date.now() + 90_000).toUTCString() }));
      const dated = (await readError(input(), RateLimited)).seconds;
      assert.ok(dated >= 88 && dated <= 90, String(dated));
      // Another 403 is a refusal, not a wait.
      google.respond((_req, _body, json) => json(403, googleError(403, 'The user must be signed up for Google Calendar.', 'forbidden')));
      assert.match((await readError(input(), SourceUnavailable)).message, /HTTP 403: The user must be signed up for Google Calendar\./);
    });

    it('turns a 401 into SourceUnavailable that never names the token, even when Google repeats it', async () => {
      const revoked = 'ya29.revoked-but-secret-token-0123456789';
      const err = await readError(input({}, { credentials: { access_token: revoked } }), SourceUnavailable);
      assert.equal(err.message, "Google Calendar refused the connection's access token (HTTP 401: Request had invalid authentication credentials.); the account may have withdrawn access: connect it again.");
      google.respond((_req, _body, json) => json(401, { error: { code: 401, message: `Invalid Credentials: Bearer ${TOKEN}` } }));
      const echoed = await readError(input(), SourceUnavailable);
      assert.match(echoed.message, /Bearer \[token\]/);
    });

    it('is SourceUnavailable for a calendar gone (404), a 500, an unreachable Google, and a connection without a token', async () => {
      const gone = await readError(input({ calendar_id: 'gone@group.calendar.google.com' }), SourceUnavailable);
      assert.match(gone.message, /HTTP 404: Not Found.*no calendar "gone@group\.calendar\.google\.com"/);
      google.respond((_req, _body, json) => json(500, googleError(500, 'Backend Error', 'backendError')));
      assert.match((await readError(input(), SourceUnavailable)).message, /HTTP 500: Backend Error/);
      google.respond((_req, _body, json) => json(200, { kind: 'calendar#events', items: [] }));
      assert.match((await readError(input(), SourceUnavailable)).message, /neither a next page nor a sync token/);
      google.respond((_req, _body, json) => json(200, { kind: 'calendar#events', items: [], nextPageToken: 'same' }));
      assert.match((await readError(input({}, { cursor: { page_token: 'same' } }), SourceUnavailable)).message, /same page token twice/);
      await readError(input({}, { credentials: null }), SourceUnavailable);
      await readError(input({}, { credentials: {} }), SourceUnavailable);
      const url = google.url;
      await google.close();
      const closed = googleCalendarEventsKind({ apiUrl: url, timeoutMs: 2000 });
      const err = await failing((async () => {
        for await (const _ of closed.read(input())) assert.fail('no page');
      })(), SourceUnavailable);
      assert.match(err.message, /^Google Calendar could not be reached: /);
      google = await fakeGoogle();
    });

    it('honours the signal: nothing is asked once it is aborted, and a call waiting for Google stops with it', async () => {
      const stopped = new AbortController();
      stopped.abort();
      await readError(input({}, { signal: stopped.signal }), SourceUnavailable);
      assert.equal(google.seen.length, 0);

      google.respond(() => undefined);
      const later = new AbortController();
      const started = Date.now();
      setTimeout(() => later.abort(), 100);
      const err = await readError(input({}, { signal: later.signal }), SourceUnavailable);
      assert.ok(Date.now() - started < 1500, 'stopped by the signal, not the 2 s timeout');
      assert.match(err.message, /stopped/);
    });
  });

  describe('push channels', () => {
    it('watch opens a channel with events.watch and answers its id, resourceId and expiry', async () => {
      const channel = await kind.watch!({ ...input(), address: ADDRESS, token: SECRET, channelId: 'src-0f3c9a1e-4b7d-4c2a-9e1f-2a3b4c5d6e7f' });
      assert.deepEqual(channel, { id: 'src-0f3c9a1e-4b7d-4c2a-9e1f-2a3b4c5d6e7f', resourceId: 'ret08u3rv24htgh289g', expiresAt: new Date(1_900_000_000_000) });
      const [request] = google.seen;
      assert.equal(request.method, 'POST');
      assert.equal(request.url, '/calendar/v3/calendars/primary/events/watch');
      assert.equal(request.headers.authorization, `Bearer ${TOKEN}`);
      assert.deepEqual(request.body, { id: 'src-0f3c9a1e-4b7d-4c2a-9e1f-2a3b4c5d6e7f', type: 'web_hook', address: ADDRESS, token: SECRET });

      google.calendars.set('team@group.calendar.google.com', new FakeCalendar('team@group.calendar.google.com', 'Team'));
      await kind.watch!({ ...input({ calendar_id: 'team@group.calendar.google.com' }), address: ADDRESS, token: SECRET, channelId: 'c2' });
      assert.equal(google.seen[1].url, '/calendar/v3/calendars/team%40group.calendar.google.com/events/watch');
    });

    it('watch throws like read: an address Google would refuse before sending, a 401, a rate limit', async () => {
      await failing(kind.watch!({ ...input(), address: 'http://tessera.example/hook', token: SECRET, channelId: 'c1' }), SourceUnavailable);
      assert.equal(google.seen.length, 0);
      await failing(kind.watch!({ ...input({}, { credentials: { access_token: 'ya29.other' } }), address: ADDRESS, token: SECRET, channelId: 'c1' }), SourceUnavailable);
      google.respond((_req, _body, json) => json(429, googleError(429, 'Rate Limit Exceeded', 'rateLimitExceeded'), { 'retry-after': '5' }));
      assert.equal((await failing(kind.watch!({ ...input(), address: ADDRESS, token: SECRET, channelId: 'c1' }), RateLimited)).seconds, 5);
    });

    it('unwatch stops the channel with its id and resourceId; one Google no longer knows (404) is no failure', async () => {
      const channel = { id: 'src-1', resourceId: 'ret08u3rv24htgh289g', expiresAt: new Date(1_900_000_000_000) };
      await kind.unwatch!({ ...input(), channel });
      assert.deepEqual(google.seen.map((s) => [s.method, s.url, s.body]), [['POST', '/calendar/v3/channels/stop', { id: 'src-1', resourceId: 'ret08u3rv24htgh289g' }]]);
      // Stopped already: Google answers 404.
      await kind.unwatch!({ ...input(), channel });
      assert.equal(google.seen.length, 2);
      // Without a resourceId there is nothing Google could stop it by.
      await kind.unwatch!({ ...input(), channel: { ...channel, resourceId: null } });
      assert.equal(google.seen.length, 2);
      await failing(kind.unwatch!({ ...input({}, { credentials: { access_token: 'ya29.other' } }), channel: { ...channel, id: 'src-2' } }), SourceUnavailable);
    });

    it('changedChannel: events.exists and events.not_exists tell of changes on their channel; a channel\'s sync message does not', () => {
      const delivered = (state: string) => {
        const headers: Record<string, string> = {
          'x-goog-channel-id': 'src-0f3c9a1e',
          'x-goog-channel-token': SECRET,
          'x-goog-resource-id': 'ret08u3rv24htgh289g',
          'x-goog-resource-state': state,
          'x-goog-message-number': state === 'sync' ? '1' : '7',
        };
        const read = readGoogleCalendarNotification({ rawBody: Buffer.alloc(0), headers, secret: SECRET, now: Date.now() } satisfies InboundDelivery);
        assert.ok(!refused(read));
        return { event: read.event, payload: read.payload };
      };
      assert.equal(kind.changedChannel!(delivered('sync')), null);
      assert.equal(kind.changedChannel!(delivered('exists')), 'src-0f3c9a1e');
      assert.equal(kind.changedChannel!(delivered('not_exists')), 'src-0f3c9a1e');
      assert.equal(kind.changedChannel!({ event: 'integration.google_calendar.events.exists', payload: { channel_id: 'src-1' } }), 'src-1');
      for (const odd of [{ event: 'events.exists', payload: null }, { event: 'events.exists', payload: { channel_id: 3 } }, { event: 'something', payload: { channel_id: 'src-1' } }])
        assert.equal(kind.changedChannel!(odd), null, JSON.stringify(odd));
    });
  });
});
