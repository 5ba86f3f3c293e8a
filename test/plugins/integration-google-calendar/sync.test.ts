import assert from 'node:assert/strict';
import { createWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import { CLIENT_ID, CLIENT_SECRET, EMAIL, fakeGoogle, FakeCalendar, TOKEN, type FakeGoogle, type GoogleEvent } from './fake-google.ts';
import { endedRun, recordsOf, syncedRun } from '../sources/runs.ts';

/**
 * The kind end to end, through the sources plugin and the records write path: a `google-calendar` connection made by
 * the OAuth flow against the loopback server's token endpoint, a source on its primary calendar, a first full sync,
 * then incremental ones with the sync token, and a sync token Google no longer honours.
 */
describe('integration-google-calendar: google_calendar.events through sources', function () {
  this.timeout(120_000);
  let t: TestKernel;
  let google: FakeGoogle;
  let owner: SignedUpUser;
  let ws: string;
  let connectionId: string;
  const api = (path: string) => `/api/v1/workspaces/${ws}${path}`;

  const event = (id: string, day: number, more: Partial<GoogleEvent> = {}): GoogleEvent => ({
    kind: 'calendar#event',
    id,
    status: 'confirmed',
    summary: `Event ${id}`,
    htmlLink: `https://www.google.com/calendar/event?eid=${id}`,
    start: { dateTime: `2025-03-${String(day).padStart(2, '0')}T10:00:00+01:00` },
    end: { dateTime: `2025-03-${String(day).padStart(2, '0')}T11:00:00+01:00` },
    updated: '2025-03-01T10:00:00.000Z',
    ...more,
  });

  before(async () => {
    google = await fakeGoogle();
    google.calendars.set('primary', new FakeCalendar(EMAIL, 'Ada Lovelace', [
      event('planning', 10, { summary: 'Planning', location: 'Room 1', attendees: [{ email: 'ada@example.com' }, { email: 'grace@example.com' }], organizer: { email: EMAIL } }),
      event('review', 11, { summary: 'Review', status: 'tentative' }),
      { kind: 'calendar#event', id: 'party', status: 'confirmed', summary: 'Party', start: { date: '2025-03-14' }, end: { date: '2025-03-15' }, updated: '2025-03-01T10:00:00.000Z' },
      event('dropped', 12, { status: 'cancelled' }),
    ]));
    t = await startTestKernel({
      config: {
        // Google posts push notifications to HTTPS addresses only: the address the channel is opened with says so.
        publicUrl: 'https://tessera.example.test',
        plugins: {
          'integration-google-calendar': {
            options: { apiUrl: google.url, tokenUrl: `${google.origin}/token`, revokeUrl: `${google.origin}/revoke`, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
          },
        },
      },
    });
    owner = await signUp(t);
    ws = (await createWorkspace(t, owner)).id;
    await t.request.post(api('/spaces')).set(owner.auth).send({ name: 'Calendars' }).expect(201);

    const made = await t.request.post(api('/connections')).set(owner.auth).send({ provider: 'google-calendar', name: 'Ada\'s calendar' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const authorize = new URL(made.body.authorize_url);
    const done = await t.request.get('/api/v1/integrations/google-calendar/oauth/callback').query({ code: '4/0Adeu5B-code', state: authorize.searchParams.get('state')! }).set(owner.auth);
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.status, 'active');
    assert.deepEqual(done.body.account, { id: EMAIL, name: 'Ada Lovelace' });
    connectionId = done.body.id;
  });
  after(async () => {
    await t?.stop();
    await google?.close();
  });

  const synced = (sourceId: string, body: Record<string, unknown> = {}) => syncedRun(t, owner.auth, ws, sourceId, body);

  const records = (databaseId: string) => recordsOf(t, owner.auth, ws, databaseId);

  const eventLists = () => google.seen.filter((s) => s.method === 'GET' && new URL(s.url, 'http://x').pathname === '/calendar/v3/calendars/primary/events');
  const lastQuery = () => Object.fromEntries(new URL(eventLists().at(-1)!.url, 'http://x').searchParams);

  it('is offered for google-calendar connections', async () => {
    const res = await t.request.get('/api/v1/integrations').set(owner.auth).expect(200);
    const provider = res.body.data.find((p: { id: string }) => p.id === 'google-calendar');
    assert.ok(provider.capabilities.includes('sources'), JSON.stringify(provider.capabilities));
  });

  it('refuses a calendar the account cannot see at /config/calendar_id', async () => {
    const res = await t.request.post(api('/sources')).set(owner.auth).send({ kind: 'google_calendar.events', name: 'Nobody', connection_id: connectionId, config: { calendar_id: 'nobody@example.com' } });
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.ok(JSON.stringify(res.body).includes('/config/calendar_id'), JSON.stringify(res.body));
    assert.ok(!res.text.includes(TOKEN));
  });

  it('syncs events into records by event id: a full read, then what changed (sync token), then a full read again after a 410', async () => {
    const created = await t.request.post(api('/sources')).set(owner.auth).send({ kind: 'google_calendar.events', name: 'Ada\'s calendar', connection_id: connectionId, config: {} });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const source = created.body;
    assert.deepEqual(source.config, { calendar_id: 'primary', single_events: true });

    const first = await synced(source.id);
    assert.deepEqual([first.status, first.created, first.updated, first.deleted, first.skipped], ['succeeded', 3, 0, 0, 0], JSON.stringify(first));
    assert.deepEqual(lastQuery(), { maxResults: '250', singleEvents: 'true' });
    let rows = await records(source.database_id);
    const planning = rows.find((r) => r.values.id === 'planning')!;
    assert.equal(planning.values.summary, 'Planning');
    assert.equal(planning.values.location, 'Room 1');
    assert.equal(new Date(planning.values.start).toISOString(), '2025-03-10T09:00:00.000Z');
    assert.equal(planning.values.status.label, 'confirmed');
    assert.equal(planning.values.organizer, EMAIL);
    assert.equal(planning.values.attendees, 'ada@example.com, grace@example.com');
    assert.equal(planning.values.html_link, 'https://www.google.com/calendar/event?eid=planning');
    const party = rows.find((r) => r.values.id === 'party')!;
    assert.equal(party.values.all_day, true);
    assert.equal(new Date(party.values.start).toISOString(), '2025-03-14T00:00:00.000Z');
    assert.equal(rows.find((r) => r.values.id === 'review')!.values.status.label, 'tentative');
    assert.equal(rows.some((r) => r.values.id === 'dropped'), false);

    // What changed since: one moved, one deleted, one new.
    google.primary.put({ id: 'planning', summary: 'Planning (moved)', start: { dateTime: '2025-03-17T10:00:00+01:00' }, end: { dateTime: '2025-03-17T11:00:00+01:00' } });
    google.primary.cancel('review');
    google.primary.put(event('retro', 20, { summary: 'Retro' }));
    const second = await synced(source.id);
    assert.deepEqual([second.status, second.created, second.updated, second.deleted], ['succeeded', 1, 1, 1], JSON.stringify(second));
    assert.deepEqual(lastQuery(), { syncToken: 'sync-1', maxResults: '250', singleEvents: 'true', showDeleted: 'true' });
    rows = await records(source.database_id);
    assert.deepEqual(rows.map((r) => r.values.id).sort(), ['party', 'planning', 'retro']);
    assert.equal(rows.find((r) => r.id === planning.id)!.values.summary, 'Planning (moved)');

    // Nothing changed: nothing written.
    const quiet = await synced(source.id);
    assert.deepEqual([quiet.status, quiet.created, quiet.updated, quiet.deleted], ['succeeded', 0, 0, 0]);
    assert.equal(lastQuery().syncToken, 'sync-4');

    // Google forgets the sync token (410): the run reads everything again, once, and finds the calendar as it is.
    google.primary.expireSyncTokens();
    google.primary.cancel('party');
    const before = eventLists().length;
    const restarted = await synced(source.id);
    assert.deepEqual([restarted.status, restarted.created, restarted.updated, restarted.deleted], ['succeeded', 0, 0, 1], JSON.stringify(restarted));
    const asked = eventLists().slice(before).map((s) => new URL(s.url, 'http://x').searchParams.get('syncToken'));
    assert.deepEqual(asked, ['sync-4', null]);
    assert.deepEqual((await records(source.database_id)).map((r) => r.values.id).sort(), ['planning', 'retro']);
  });

  it('opens a push channel to the connection\'s receiver when a source is made; Google\'s notification on it starts an incremental run; the channel is renewed before it ends and stopped with the source', async () => {
    const watches = () => google.seen.filter((s) => s.method === 'POST' && s.url.endsWith('/events/watch'));
    const before = watches().length;
    const source = (await t.request.post(api('/sources')).set(owner.auth).send({ kind: 'google_calendar.events', name: 'Pushed', connection_id: connectionId, config: {} }).expect(201)).body;
    assert.equal(watches().length, before + 1);
    const opened = watches().at(-1)!.body as { id: string; type: string; address: string; token: string };
    assert.equal(opened.type, 'web_hook');
    assert.equal(new URL(opened.address).pathname, `/api/v1/integrations/google-calendar/webhook/${connectionId}`);
    await synced(source.id);

    const notify = (number: number, state: string, token = opened.token) =>
      t.request
        .post(new URL(opened.address).pathname)
        .set({ 'x-goog-channel-id': opened.id, 'x-goog-channel-token': token, 'x-goog-message-number': String(number), 'x-goog-resource-state': state, 'x-goog-resource-id': 'ret08u3rv24htgh289g' })
        .send();
    await notify(1, 'sync').expect(202);
    await notify(2, 'exists', 'not the token').expect(401);
    await t.kernel.events.settle();
    const runs = async () => (await t.request.get(api(`/sources/${source.id}/runs`)).set(owner.auth).expect(200)).body.data as Array<Record<string, any>>;
    assert.equal((await runs()).length, 1, 'neither the opening message nor a forged one starts a run');

    google.primary.put(event('pushed', 21, { summary: 'Pushed in' }));
    await notify(3, 'exists').expect(202);
    await t.kernel.events.settle();
    const [pushed] = await runs();
    assert.equal(pushed.trigger, 'push');
    const done = await endedRun(t, owner.auth, ws, source.id, pushed.id);
    assert.deepEqual([done.status, done.created], ['succeeded', 1]);

    // A channel ending within a day is replaced, and the old one stopped.
    await t.db('sources').where({ id: source.id }).update({ push_channel: JSON.stringify({ id: opened.id, resourceId: 'ret08u3rv24htgh289g', expiresAt: new Date(Date.now() + 3600_000).toISOString() }) });
    await t.kernel.container.resolverFor('sources')('sources.push').renew();
    const renewed = watches().at(-1)!.body as { id: string };
    assert.notEqual(renewed.id, opened.id);
    assert.ok(google.stopped.includes(opened.id));

    await t.request.delete(api(`/sources/${source.id}`)).set(owner.auth).expect(204);
    assert.ok(google.stopped.includes(renewed.id));
  });

  it('fails a run whose token Google refuses, with a message that names no token', async () => {
    const created = await t.request.post(api('/sources')).set(owner.auth).send({ kind: 'google_calendar.events', name: 'Refused', connection_id: connectionId, config: {} }).expect(201);
    google.respond((_req, _body, json) => json(403, { error: { code: 403, message: `Calendar access was withdrawn for ${TOKEN}.`, errors: [{ domain: 'global', reason: 'forbidden' }] } }));
    try {
      const run = await synced(created.body.id);
      assert.equal(run.status, 'failed');
      assert.match(run.error, /HTTP 403: Calendar access was withdrawn for \[token\]\./);
    } finally {
      google.respond(null);
    }
  });
});
