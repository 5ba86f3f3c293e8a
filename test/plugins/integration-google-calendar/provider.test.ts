import assert from 'node:assert/strict';
import { compile } from '../../../core/schema.ts';
import { ActionFailed, EVENT_PATTERN, refused, TokenRejected, type InboundDelivery, type ProviderAction, type ReadDelivery, type Refusal } from '../../../plugins/integrations/public.ts';
import { GoogleCalendarClient, SyncTokenExpired } from '../../../plugins/integration-google-calendar/calendar-client.ts';
import { googleCalendarProvider, readGoogleCalendarNotification } from '../../../plugins/integration-google-calendar/provider.ts';
import { GoogleCalendarOptions } from '../../../plugins/integration-google-calendar/schemas.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';
import { EMAIL, fakeGoogle, SECRET, TOKEN } from './fake-google.ts';


/** A push notification as Google posts it: no body, everything in the `X-Goog-*` headers (names lower-cased by Node). */
function notification(state: string, overrides: Record<string, string | undefined> = {}): InboundDelivery {
  const headers: Record<string, string | undefined> = {
    'content-length': '0',
    'user-agent': 'APIs-Google; (+https://developers.google.com/webmasters/APIs-Google.html)',
    'x-goog-channel-id': '4ba78bf0-6a47-11e2-bcfd-0800200c9a66',
    'x-goog-channel-token': SECRET,
    'x-goog-channel-expiration': 'Tue, 19 Nov 2030 01:13:52 GMT',
    'x-goog-resource-id': 'ret08u3rv24htgh289g',
    'x-goog-resource-uri': 'https://www.googleapis.com/calendar/v3/calendars/primary/events?alt=json',
    'x-goog-resource-state': state,
    'x-goog-message-number': state === 'sync' ? '1' : '10',
    ...overrides,
  };
  for (const name of Object.keys(headers)) if (headers[name] === undefined) delete headers[name];
  return { rawBody: Buffer.alloc(0), headers: headers as Record<string, string>, secret: SECRET, now: Date.now() };
}

function read(delivery: InboundDelivery): ReadDelivery {
  const outcome = readGoogleCalendarNotification(delivery);
  if (refused(outcome)) assert.fail(`refused: ${outcome.refused}`);
  return outcome;
}

function refusal(delivery: InboundDelivery): string {
  const outcome = readGoogleCalendarNotification(delivery);
  assert.ok(refused(outcome), `expected a refusal, got ${JSON.stringify(outcome)}`);
  const text = (outcome as Refusal).refused;
  assert.ok(text.length > 10, text);
  assert.ok(!text.includes(SECRET), text);
  return text;
}

async function rejection<T extends Error>(promise: Promise<unknown>, type: new (...args: any[]) => T): Promise<T> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof type, `expected a ${type.name}, got ${err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err)}`);
    assert.ok(!err.message.includes(TOKEN), err.message);
    return err;
  }
  return assert.fail(`expected a ${type.name}, but it resolved`);
}

describe('integration-google-calendar provider', () => {
  storageIndependent();

  it('declares Google Calendar: OAuth with Google\'s endpoints, scopes and offline access, shared-secret notifications, its events and action', () => {
    const provider = googleCalendarProvider({ clientId: '123-abc.apps.googleusercontent.com', clientSecret: 'GOCSPX-client-secret' });
    assert.equal(provider.id, 'google-calendar');
    assert.equal(provider.name, 'Google Calendar');
    assert.deepEqual(provider.categories, ['calendar']);
    assert.deepEqual(provider.auth, {
      type: 'oauth2',
      authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenUrl: 'https://oauth2.googleapis.com/token',
      scopes: ['https://www.googleapis.com/auth/calendar.readonly', 'https://www.googleapis.com/auth/calendar.events'],
      clientId: '123-abc.apps.googleusercontent.com',
      clientSecret: 'GOCSPX-client-secret',
      authorizeParams: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
      issuer: 'https://accounts.google.com',
    });
    assert.equal(provider.signsWithSharedSecret, true);
    assert.deepEqual(provider.events, ['sync', 'events.exists', 'events.not_exists']);
    assert.deepEqual(provider.sources, ['google_calendar.events']);
    for (const event of provider.events ?? []) assert.match(event, EVENT_PATTERN);
    assert.deepEqual(
      provider.actions?.map((a) => [a.type, a.retrySafe]),
      [['google_calendar_create_event', false]],
    );
  });

  it('has no client id or secret without options (the integrations plugin lists it as not configured); other endpoints can be given', () => {
    const bare = googleCalendarProvider();
    assert.equal(bare.auth.type, 'oauth2');
    assert.ok(bare.auth.type === 'oauth2' && !('clientId' in bare.auth) && !('clientSecret' in bare.auth));
    const other = googleCalendarProvider({ authorizeUrl: 'http://127.0.0.1:1/auth', tokenUrl: 'http://127.0.0.1:1/token' });
    assert.ok(other.auth.type === 'oauth2' && other.auth.authorizeUrl === 'http://127.0.0.1:1/auth' && other.auth.tokenUrl === 'http://127.0.0.1:1/token');
  });

  it('options: all optional, URLs must be http(s), clientId and clientSecret come together', () => {
    const validate = compile(GoogleCalendarOptions);
    assert.equal(validate({}), true);
    assert.equal(validate({ clientId: 'id.apps.googleusercontent.com', clientSecret: 'GOCSPX-x', apiUrl: 'http://127.0.0.1:9/calendar/v3' }), true);
    assert.equal(validate({ clientId: 'id.apps.googleusercontent.com' }), false);
    assert.equal(validate({ clientSecret: 'GOCSPX-x' }), false);
    assert.equal(validate({ apiUrl: 'ftp://example.com' }), false);
    assert.equal(validate({ scopes: ['x'] }), false);
  });

  describe('verifyWebhook (push notifications)', () => {
    it('reads the sync message a new channel sends: event sync, delivery id channel:number, the headers as payload', () => {
      const got = read(notification('sync'));
      assert.equal(got.event, 'sync');
      assert.equal(got.deliveryId, '4ba78bf0-6a47-11e2-bcfd-0800200c9a66:1');
      assert.deepEqual(got.payload, {
        channel_id: '4ba78bf0-6a47-11e2-bcfd-0800200c9a66',
        resource_id: 'ret08u3rv24htgh289g',
        resource_state: 'sync',
        resource_uri: 'https://www.googleapis.com/calendar/v3/calendars/primary/events?alt=json',
        message_number: 1,
        channel_expiration: '2030-11-19T01:13:52.000Z',
      });
      assert.equal(got.reply, undefined);
    });

    it('reads a change as events.<state>; message numbers make distinct delivery ids', () => {
      const exists = read(notification('exists'));
      assert.equal(exists.event, 'events.exists');
      assert.equal(exists.deliveryId, '4ba78bf0-6a47-11e2-bcfd-0800200c9a66:10');
      assert.equal((exists.payload as { message_number: number }).message_number, 10);
      const next = read(notification('exists', { 'x-goog-message-number': '11' }));
      assert.equal(next.deliveryId, '4ba78bf0-6a47-11e2-bcfd-0800200c9a66:11');
      const gone = read(notification('not_exists', { 'x-goog-message-number': '12' }));
      assert.equal(gone.event, 'events.not_exists');
      for (const r of [exists, next, gone]) assert.match(r.event, EVENT_PATTERN);
      // A body (Google sends none) is not read, and what it says does not matter.
      assert.equal(read({ ...notification('exists'), rawBody: Buffer.from('{"x":1}') }).event, 'events.exists');
    });

    it('gives null for the headers Google may leave out', () => {
      const got = read(notification('exists', { 'x-goog-resource-uri': undefined, 'x-goog-channel-expiration': undefined, 'x-goog-resource-id': undefined }));
      assert.deepEqual(got.payload, {
        channel_id: '4ba78bf0-6a47-11e2-bcfd-0800200c9a66',
        resource_id: null,
        resource_state: 'exists',
        resource_uri: null,
        message_number: 10,
        channel_expiration: null,
      });
    });

    it('refuses a notification whose channel token is not the connection\'s webhook secret', () => {
      assert.match(refusal(notification('exists', { 'x-goog-channel-token': 'whsec_someone-elses-secret-0123' })), /not this connection's webhook secret/);
      // One character more or less is a different secret, not a prefix that passes.
      assert.match(refusal(notification('exists', { 'x-goog-channel-token': `${SECRET}x` })), /not this connection's webhook secret/);
      assert.match(refusal(notification('exists', { 'x-goog-channel-token': SECRET.slice(0, -1) })), /not this connection's webhook secret/);
    });

    it('refuses a notification without a channel token, and every notification of a connection without a secret', () => {
      assert.match(refusal(notification('exists', { 'x-goog-channel-token': undefined })), /no X-Goog-Channel-Token/);
      assert.match(refusal(notification('exists', { 'x-goog-channel-token': '  ' })), /no X-Goog-Channel-Token/);
      assert.match(refusal({ ...notification('exists'), secret: null }), /no webhook secret/);
      assert.match(refusal({ ...notification('exists'), secret: '' }), /no webhook secret/);
    });

    it('refuses a notification with the right token but no channel id, message number or resource state', () => {
      assert.match(refusal(notification('exists', { 'x-goog-channel-id': undefined })), /no X-Goog-Channel-ID/);
      assert.match(refusal(notification('exists', { 'x-goog-channel-id': 'has spaces in it' })), /not a channel id/);
      assert.match(refusal(notification('exists', { 'x-goog-message-number': undefined })), /no X-Goog-Message-Number/);
      for (const bad of ['ten', '-1', '1.5', '1e3']) assert.match(refusal(notification('exists', { 'x-goog-message-number': bad })), /not a whole number/, bad);
      assert.match(refusal(notification('exists', { 'x-goog-resource-state': undefined })), /no X-Goog-Resource-State/);
      assert.match(refusal(notification('../x')), /not a state name/);
    });
  });

  describe('test(credentials)', () => {
    let google: Awaited<ReturnType<typeof fakeGoogle>>;
    afterEach(async () => {
      await google?.close();
    });

    it('reads the primary calendar with the bearer token: the account is the calendar id (the email) and its summary', async () => {
      google = await fakeGoogle();
      const outcome = await googleCalendarProvider({ apiUrl: google.url }).test({ access_token: TOKEN });
      assert.deepEqual(outcome, { ok: true, detail: `Signed in as ${EMAIL}`, account: { id: EMAIL, name: 'Ada Lovelace' } });
      assert.equal(google.seen.length, 1);
      assert.equal(google.seen[0].method, 'GET');
      assert.equal(google.seen[0].url, '/calendar/v3/users/me/calendarList/primary');
      assert.equal(google.seen[0].headers.authorization, `Bearer ${TOKEN}`);
    });

    it('works with a trailing slash on apiUrl', async () => {
      google = await fakeGoogle();
      const outcome = await googleCalendarProvider({ apiUrl: `${google.url}/` }).test({ access_token: TOKEN });
      assert.equal(outcome.ok, true, outcome.detail);
      assert.equal(google.seen[0].url, '/calendar/v3/users/me/calendarList/primary');
    });

    it('answers ok false with Google\'s message for a refused token (401)', async () => {
      google = await fakeGoogle();
      const wrong = 'ya29.WrongAccessToken9876543210zyxwvu';
      const outcome = await googleCalendarProvider({ apiUrl: google.url }).test({ access_token: wrong });
      assert.deepEqual(outcome, { ok: false, detail: 'Request had invalid authentication credentials.' });
      assert.equal(google.seen[0].headers.authorization, `Bearer ${wrong}`);
    });

    it('answers ok false for a 403 with Google\'s message, scrubbing a token Google would echo', async () => {
      google = await fakeGoogle();
      google.respond((_req, _body, json) => json(403, { error: { code: 403, message: `Request had insufficient authentication scopes for ${TOKEN}.`, status: 'PERMISSION_DENIED' } }));
      const outcome = await googleCalendarProvider({ apiUrl: google.url }).test({ access_token: TOKEN });
      assert.equal(outcome.ok, false);
      assert.match(outcome.detail, /HTTP 403: Request had insufficient authentication scopes for \[token\]\./);
      assert.ok(!outcome.detail.includes(TOKEN));
    });

    it('answers ok false when apiUrl is not the Calendar API (404, or 200 that is not a calendar)', async () => {
      google = await fakeGoogle();
      const missing = await googleCalendarProvider({ apiUrl: google.url.replace('/calendar/v3', '/v2') }).test({ access_token: TOKEN });
      assert.equal(missing.ok, false);
      assert.match(missing.detail, /HTTP 404: Not Found/);
      google.respond((_req, _body, json) => json(200, { kind: 'something else' }));
      const odd = await googleCalendarProvider({ apiUrl: google.url }).test({ access_token: TOKEN });
      assert.equal(odd.ok, false);
      assert.match(odd.detail, /without a calendar: check that apiUrl/);
    });

    it('answers ok false when Google cannot be reached (a closed port) or does not answer in time', async () => {
      google = await fakeGoogle();
      google.respond(() => undefined);
      const slow = await googleCalendarProvider({ apiUrl: google.url, timeoutMs: 200 }).test({ access_token: TOKEN });
      assert.deepEqual(slow, { ok: false, detail: 'Google Calendar could not be reached: no answer within 0.2 s' });
      const url = google.url;
      await google.close();
      const closed = await googleCalendarProvider({ apiUrl: url }).test({ access_token: TOKEN });
      assert.equal(closed.ok, false);
      assert.match(closed.detail, /^Google Calendar could not be reached: .*ECONNREFUSED/);
      assert.ok(!closed.detail.includes(TOKEN));
    });

    it('sends nothing for a missing token or one no header can carry, and does not repeat it', async () => {
      google = await fakeGoogle();
      const provider = googleCalendarProvider({ apiUrl: google.url });
      assert.deepEqual(await provider.test({}), { ok: false, detail: 'The access token is empty.' });
      const broken = await provider.test({ access_token: `${TOKEN}\r\nX-Injected: 1` });
      assert.equal(broken.ok, false);
      assert.match(broken.detail, /characters no Google token has/);
      assert.ok(!broken.detail.includes(TOKEN));
      assert.equal(google.seen.length, 0);
    });
  });

  describe('the client (for syncs: events and channels)', () => {
    let google: Awaited<ReturnType<typeof fakeGoogle>>;
    let client: GoogleCalendarClient;
    beforeEach(async () => {
      google = await fakeGoogle();
      client = new GoogleCalendarClient({ apiUrl: google.url, timeoutMs: 2000 });
    });
    afterEach(async () => {
      await google.close();
    });

    it('lists events a page at a time, following nextPageToken to the page with nextSyncToken', async () => {
      const first = await client.listEvents(TOKEN, 'primary', { maxResults: 2, timeMin: '2025-01-01T00:00:00Z', singleEvents: true });
      assert.deepEqual(first.events.map((e) => e.id), ['evt1', 'evt2']);
      assert.equal(first.nextPageToken, 'p2');
      assert.equal(first.nextSyncToken, null);
      const second = await client.listEvents(TOKEN, 'primary', { maxResults: 2, pageToken: first.nextPageToken! });
      assert.deepEqual(second.events.map((e) => e.id), ['evt3', 'evt4']);
      const last = await client.listEvents(TOKEN, 'primary', { maxResults: 2, pageToken: second.nextPageToken! });
      assert.deepEqual(last.events.map((e) => e.id), ['evt5']);
      assert.deepEqual([last.nextPageToken, last.nextSyncToken], [null, 'sync-1']);
      const query = (i: number) => Object.fromEntries(new URL(google.seen[i].url, 'http://x').searchParams);
      assert.equal(new URL(google.seen[0].url, 'http://x').pathname, '/calendar/v3/calendars/primary/events');
      assert.deepEqual(query(0), { maxResults: '2', timeMin: '2025-01-01T00:00:00Z', singleEvents: 'true' });
      assert.deepEqual(query(1), { maxResults: '2', pageToken: 'p2' });
      assert.equal(google.seen[1].headers.authorization, `Bearer ${TOKEN}`);
    });

    it('walks every page with eventPages, then syncs what changed with the sync token', async () => {
      const pages = [];
      for await (const page of client.eventPages(TOKEN, 'primary', { maxResults: 2 })) pages.push(page);
      assert.deepEqual(
        pages.map((p) => [p.events.map((e) => e.id), p.nextPageToken, p.nextSyncToken]),
        [
          [['evt1', 'evt2'], 'p2', null],
          [['evt3', 'evt4'], 'p4', null],
          [['evt5'], null, 'sync-1'],
        ],
      );
      google.primary.cancel('evt1');
      const changes = await client.listEvents(TOKEN, 'primary', { syncToken: 'sync-1' });
      assert.deepEqual(changes.events.map((e) => [e.id, e.status]), [['evt1', 'cancelled']]);
      assert.equal(changes.nextSyncToken, 'sync-2');
      assert.equal(new URL(google.seen.at(-1)!.url, 'http://x').searchParams.get('syncToken'), 'sync-1');
    });

    it('throws SyncTokenExpired, not an ActionFailed, when Google answers 410 to a stale sync token', async () => {
      const err = await rejection(client.listEvents(TOKEN, 'primary', { syncToken: 'sync-stale' }), SyncTokenExpired);
      assert.ok(!(err instanceof ActionFailed));
      assert.equal(err.code, 'full_sync_required');
      assert.match(err.message, /Sync token is no longer valid/);
      // A generator stops with it too.
      await rejection((async () => {
        for await (const _ of client.eventPages(TOKEN, 'primary', { syncToken: 'sync-stale' })) assert.fail('no page');
      })(), SyncTokenExpired);
    });

    it('throws TokenRejected for a 401, and refuses timeMin with a sync token before sending anything', async () => {
      const err = await rejection(client.listEvents('ya29.expired-token-value', 'primary'), TokenRejected);
      assert.equal(err.message, 'Request had invalid authentication credentials.');
      const before = google.seen.length;
      await assert.rejects(client.listEvents(TOKEN, 'primary', { syncToken: 'sync-1', timeMin: '2025-01-01T00:00:00Z' }), /timeMin together with syncToken/);
      assert.equal(google.seen.length, before);
    });

    it('opens a channel with events.watch (type web_hook, our id, address and token, ttl as a string)', async () => {
      const channel = await client.watch(TOKEN, 'primary', {
        id: '01234567-89ab-cdef-0123-456789abcdef',
        address: 'https://tessera.example/api/v1/integrations/google-calendar/webhook/8c1f6f5e-2b7a-4d3e-9f00-1a2b3c4d5e6f',
        token: SECRET,
        ttlSeconds: 86_400,
      });
      assert.deepEqual(channel, {
        id: '01234567-89ab-cdef-0123-456789abcdef',
        resourceId: 'ret08u3rv24htgh289g',
        resourceUri: 'https://www.googleapis.com/calendar/v3/calendars/primary/events?alt=json',
        expiration: 1_900_000_000_000,
      });
      const [request] = google.seen;
      assert.equal(request.method, 'POST');
      assert.equal(request.url, '/calendar/v3/calendars/primary/events/watch');
      assert.equal(request.headers['content-type'], 'application/json');
      assert.deepEqual(request.body, {
        id: '01234567-89ab-cdef-0123-456789abcdef',
        type: 'web_hook',
        address: 'https://tessera.example/api/v1/integrations/google-calendar/webhook/8c1f6f5e-2b7a-4d3e-9f00-1a2b3c4d5e6f',
        token: SECRET,
        params: { ttl: '86400' },
      });
    });

    it('refuses a channel Google would refuse (an http address, a bad id, a token too long) before sending', async () => {
      const ok = { id: 'chan-1', address: 'https://tessera.example/hook', token: SECRET };
      await rejection(client.watch(TOKEN, 'primary', { ...ok, address: 'http://tessera.example/hook' }), ActionFailed);
      await rejection(client.watch(TOKEN, 'primary', { ...ok, id: 'has space' }), ActionFailed);
      await rejection(client.watch(TOKEN, 'primary', { ...ok, token: 'x'.repeat(257) }), ActionFailed);
      assert.equal(google.seen.length, 0);
    });

    it('stops a channel with channels.stop (its id and resourceId); one Google no longer knows answers false', async () => {
      assert.equal(await client.stop(TOKEN, { id: 'chan-1', resourceId: 'ret08u3rv24htgh289g' }), true);
      assert.equal(google.seen[0].method, 'POST');
      assert.equal(google.seen[0].url, '/calendar/v3/channels/stop');
      assert.deepEqual(google.seen[0].body, { id: 'chan-1', resourceId: 'ret08u3rv24htgh289g' });
      assert.equal(await client.stop(TOKEN, { id: 'gone', resourceId: 'ret08u3rv24htgh289g' }), false);
      await rejection(client.stop('ya29.expired-token-value', { id: 'chan-1', resourceId: 'r' }), TokenRejected);
    });
  });

  describe('google_calendar_create_event', () => {
    let google: Awaited<ReturnType<typeof fakeGoogle>>;
    let action: ProviderAction;
    beforeEach(async () => {
      google = await fakeGoogle();
      action = googleCalendarProvider({ apiUrl: google.url, timeoutMs: 2000 }).actions![0];
    });
    afterEach(async () => {
      await google.close();
    });
    const run = (config: Record<string, unknown>, token = TOKEN) => action.run({ credentials: { access_token: token }, config });

    it('creates an event in the primary calendar and answers its id and link', async () => {
      const out = await run({ summary: 'Quarterly review', description: 'Room 4', start: '2025-03-14T09:30:00+01:00', end: '2025-03-14T10:30:00+01:00' });
      assert.deepEqual(out, { id: 'c0ffee1234abcd', url: 'https://www.google.com/calendar/event?eid=YzBmZmVlMTIzNGFiY2Q' });
      const [request] = google.seen;
      assert.equal(request.method, 'POST');
      assert.equal(request.url, '/calendar/v3/calendars/primary/events');
      assert.equal(request.headers.authorization, `Bearer ${TOKEN}`);
      assert.deepEqual(request.body, {
        summary: 'Quarterly review',
        description: 'Room 4',
        start: { dateTime: '2025-03-14T09:30:00+01:00' },
        end: { dateTime: '2025-03-14T10:30:00+01:00' },
      });
    });

    it('takes all-day dates (an end on the start day is one day), a time zone for local times, another calendar', async () => {
      await run({ calendar_id: 'team@group.calendar.google.com', summary: 'Offsite', start: '2025-06-02', end: '2025-06-04' });
      await run({ summary: 'Deadline', start: '2025-02-28', end: '2025-02-28' });
      await run({ summary: 'Stand-up', start: '2025-03-30T09:00:00', end: '2025-03-30T09:15:00', time_zone: 'Europe/Paris' });
      assert.equal(google.seen[0].url, '/calendar/v3/calendars/team%40group.calendar.google.com/events');
      assert.deepEqual(google.seen[0].body, { summary: 'Offsite', start: { date: '2025-06-02' }, end: { date: '2025-06-04' } });
      assert.deepEqual(google.seen[1].body, { summary: 'Deadline', start: { date: '2025-02-28' }, end: { date: '2025-03-01' } });
      assert.deepEqual(google.seen[2].body, {
        summary: 'Stand-up',
        start: { dateTime: '2025-03-30T09:00:00', timeZone: 'Europe/Paris' },
        end: { dateTime: '2025-03-30T09:15:00', timeZone: 'Europe/Paris' },
      });
    });

    it('keeps the calendar id inside its path segment', async () => {
      google.respond((_req, _body, json) => json(404, { error: { code: 404, message: 'Not Found' } }));
      await rejection(run({ calendar_id: '../../users/me/calendarList', summary: 'x', start: '2025-01-01', end: '2025-01-02' }), ActionFailed);
      await rejection(run({ calendar_id: 'a?b#c', summary: 'x', start: '2025-01-01', end: '2025-01-02' }), ActionFailed);
      assert.deepEqual(
        google.seen.map((s) => s.url),
        ['/calendar/v3/calendars/..%2F..%2Fusers%2Fme%2FcalendarList/events', '/calendar/v3/calendars/a%3Fb%23c/events'],
      );
      for (const id of ['..', '.']) await rejection(run({ calendar_id: id, summary: 'x', start: '2025-01-01', end: '2025-01-02' }), ActionFailed);
      assert.equal(google.seen.length, 2);
    });

    it('fails the step, sending nothing, for times Google would refuse or misread', async () => {
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ start: 'tomorrow', end: '2025-01-02' }, /neither an RFC 3339 date-time/],
        [{ start: '2025-02-30', end: '2025-03-02' }, /not a date of the calendar/],
        [{ start: '2025-01-01', end: '2025-01-01T10:00:00Z' }, /both be dates .* or both date-times/],
        [{ start: '2025-01-02', end: '2025-01-01' }, /before start/],
        [{ start: '2025-01-01T10:00:00Z', end: '2025-01-01T10:00:00Z' }, /not after start/],
        [{ start: '2025-01-01T10:00:00', end: '2025-01-01T11:00:00' }, /needs time_zone/],
        [{ start: '2025-01-01T10:00:00', end: '2025-01-01T11:00:00', time_zone: 'Mars/Olympus' }, /not an IANA time zone/],
        [{ start: null, end: '2025-01-01' }, /start is empty/],
      ];
      for (const [times, message] of cases) {
        const err = await rejection(run({ summary: 'x', ...times }), ActionFailed);
        assert.match(err.message, message, JSON.stringify(times));
      }
      await rejection(run({ summary: '  ', start: '2025-01-01', end: '2025-01-02' }), ActionFailed);
      assert.equal(google.seen.length, 0);
    });

    it('checks literal times when saved and lets placeholders through, to be checked once filled', () => {
      const validate = compile(action.schema);
      assert.equal(validate({ summary: 'x', start: '2025-01-01T10:00:00Z', end: '2025-01-01T11:00:00.000+02:00' }), true);
      assert.equal(validate({ summary: '{{record.title}}', start: '{{record.due}}', end: '{{ record.due }}', calendar_id: '{{record.calendar}}' }), true);
      assert.equal(validate({ summary: 'x', start: 'next tuesday', end: '2025-01-02' }), false);
      assert.equal(validate({ summary: 'x', start: '2025-01-01' }), false);
      assert.equal(validate({ summary: '', start: '2025-01-01', end: '2025-01-02' }), false);
    });

    it('throws TokenRejected for a 401, so the token is refreshed and the step tried once more', async () => {
      const err = await rejection(run({ summary: 'x', start: '2025-01-01', end: '2025-01-02' }, 'ya29.expired-token-value'), TokenRejected);
      assert.equal(err.message, 'Request had invalid authentication credentials.');
    });

    it('throws ActionFailed with Google\'s message for a 403, never with the token', async () => {
      google.respond((_req, _body, json) =>
        json(403, { error: { code: 403, message: `You need to have writer access to this calendar (token ${TOKEN}).`, errors: [{ domain: 'calendar', reason: 'requiredAccessLevel', message: 'You need to have writer access to this calendar.' }] } }),
      );
      const err = await rejection(run({ summary: 'x', start: '2025-01-01', end: '2025-01-02' }), ActionFailed);
      assert.ok(!(err instanceof TokenRejected));
      assert.equal(err.message, 'Google Calendar refused to create the event (HTTP 403: You need to have writer access to this calendar (token [token]).).');
    });

    it('throws ActionFailed when Google cannot be reached', async () => {
      const url = google.url;
      await google.close();
      const closed = googleCalendarProvider({ apiUrl: url }).actions![0];
      const err = await rejection(closed.run({ credentials: { access_token: TOKEN }, config: { summary: 'x', start: '2025-01-01', end: '2025-01-02' } }), ActionFailed);
      assert.match(err.message, /^Google Calendar could not be reached: .*ECONNREFUSED/);
    });
  });
});
