import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { CursorExpired, type SourceRow } from '../../../plugins/sources/public.ts';
import { icalEventsKind } from '../../../plugins/integration-ical/kind.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';
import { startFeedServer, type FeedServer } from './feed-server.ts';
import { assertIcalCellsAccepted, BERLIN, calendar, input, readError, readPages, readRows, vevent } from './fixtures.ts';

const byKey = (rows: SourceRow[]) => Object.fromEntries(rows.map((r) => [r.key, r.values]));

describe('integration-ical: reading a feed', () => {
  storageIndependent();
  let feed: FeedServer;
  const kind = icalEventsKind();
  beforeEach(async () => {
    feed = await startFeedServer();
  });
  afterEach(async () => {
    await feed.close();
  });

  it('declares the properties: the fields and their types, exactly one unique (uid), status choices by label', async () => {
    assert.equal(kind.id, 'ical.events');
    assert.equal(kind.provider, null);
    const properties = await kind.properties(input({ url: `${feed.origin}/cal.ics` }));
    assert.deepEqual(
      properties.map((p) => [p.key, p.type]),
      [
        ['uid', 'text'], ['summary', 'text'], ['description', 'long_text'], ['location', 'text'], ['start', 'datetime'], ['end', 'datetime'],
        ['all_day', 'checkbox'], ['status', 'single_select'], ['organizer', 'email'], ['url', 'url'], ['recurring', 'checkbox'], ['updated', 'datetime'],
      ],
    );
    assert.deepEqual(properties.filter((p) => p.unique).map((p) => p.key), ['uid']);
    const status = properties.find((p) => p.key === 'status')!;
    assert.deepEqual((status.options as { choices: Array<{ label: string }> }).choices.map((c) => c.label), ['TENTATIVE', 'CONFIRMED', 'CANCELLED']);
  });

  it('reads a simple calendar into rows with every value, unescaped, in UTC; floating times in X-WR-TIMEZONE', async () => {
    feed.ics('/team.ics', calendar(
      'X-WR-TIMEZONE:Europe/Paris',
      vevent(
        'UID:kickoff-1@example.com',
        'LAST-MODIFIED:20250302T101500Z',
        'DTSTART:20250310T090000Z',
        'DTEND:20250310T103000Z',
        'SUMMARY:Project kickoff\\, phase 1',
        'DESCRIPTION:Agenda:\\n1. Scope\\n2. Dates',
        'LOCATION:Room 4.01',
        'STATUS:CONFIRMED',
        'ORGANIZER;CN=Ada Lovelace:mailto:ada@example.com',
        'URL:https://example.com/meetings/kickoff?x=1',
      ),
      // Floating (no TZID): the calendar's zone, Paris, is UTC+1 in March. STATUS in lower case, an organizer and a
      // URL no field would take.
      vevent('UID:coffee-2@example.com', 'DTSTART:20250312T140000', 'DURATION:PT45M', 'SUMMARY:Coffee', 'STATUS:tentative',
        'ORGANIZER:urn:uuid:2c6e5e2e', 'URL:ftp://files.example.com/agenda'),
      // Long before the window (30 days back by default): not a row.
      vevent('UID:old-3@example.com', 'DTSTART:20240101T090000Z', 'DTEND:20240101T100000Z', 'SUMMARY:Last year'),
      // No UID: RFC 5545 requires one, and without it there is no key.
      ['BEGIN:VEVENT', 'DTSTAMP:20250101T000000Z', 'DTSTART:20250311T090000Z', 'SUMMARY:Anonymous', 'END:VEVENT'].join('\r\n'),
    ));
    const pages = await readPages(kind, input({ url: `${feed.origin}/team.ics` }));
    assert.equal(pages.length, 1);
    assert.equal(pages[0].snapshot, true);
    assert.equal(pages[0].cursor, null);
    const rows = pages[0].rows;
    assert.deepEqual(rows.map((r) => r.key), ['kickoff-1@example.com', 'coffee-2@example.com']);
    assert.deepEqual(rows[0].values, {
      uid: 'kickoff-1@example.com',
      summary: 'Project kickoff, phase 1',
      description: 'Agenda:\n1. Scope\n2. Dates',
      location: 'Room 4.01',
      start: '2025-03-10T09:00:00.000Z',
      end: '2025-03-10T10:30:00.000Z',
      all_day: false,
      status: 'CONFIRMED',
      organizer: 'ada@example.com',
      url: 'https://example.com/meetings/kickoff?x=1',
      recurring: false,
      updated: '2025-03-02T10:15:00.000Z',
    });
    assert.deepEqual(rows[1].values, {
      uid: 'coffee-2@example.com',
      summary: 'Coffee',
      description: null,
      location: null,
      start: '2025-03-12T13:00:00.000Z',
      end: '2025-03-12T13:45:00.000Z',
      all_day: false,
      status: 'TENTATIVE',
      organizer: null,
      url: null,
      recurring: false,
      updated: '2025-01-01T00:00:00.000Z',
    });
    await assertIcalCellsAccepted(kind, rows);
    assert.deepEqual(feed.asked, ['/team.ics']);
  });

  it('expands a weekly rule across the DST change in Europe/Berlin: EXDATE left out, overrides applied, only the window', async () => {
    feed.ics('/berlin.ics', calendar(
      BERLIN,
      vevent(
        'UID:standup@example.com',
        'DTSTART;TZID=Europe/Berlin:20250227T100000',
        'DTEND;TZID=Europe/Berlin:20250227T110000',
        'RRULE:FREQ=WEEKLY;BYDAY=TH',
        'EXDATE;TZID=Europe/Berlin:20250320T100000',
        'SUMMARY:Standup',
        'STATUS:CONFIRMED',
      ),
      // Moved within its day, after the change to summer time.
      vevent('UID:standup@example.com', 'RECURRENCE-ID;TZID=Europe/Berlin:20250403T100000', 'DTSTART;TZID=Europe/Berlin:20250403T150000',
        'DTEND;TZID=Europe/Berlin:20250403T160000', 'SUMMARY:Standup (afternoon)', 'STATUS:CONFIRMED', 'SEQUENCE:1'),
      // One instance cancelled.
      vevent('UID:standup@example.com', 'RECURRENCE-ID;TZID=Europe/Berlin:20250410T100000', 'DTSTART;TZID=Europe/Berlin:20250410T100000',
        'DTEND;TZID=Europe/Berlin:20250410T110000', 'SUMMARY:Standup', 'STATUS:CANCELLED', 'SEQUENCE:1'),
      // Moved out of the window, and one moved into it from after it.
      vevent('UID:standup@example.com', 'RECURRENCE-ID;TZID=Europe/Berlin:20250417T100000', 'DTSTART;TZID=Europe/Berlin:20250430T100000',
        'DTEND;TZID=Europe/Berlin:20250430T110000', 'SUMMARY:Standup (late)'),
      vevent('UID:standup@example.com', 'RECURRENCE-ID;TZID=Europe/Berlin:20250501T100000', 'DTSTART;TZID=Europe/Berlin:20250422T090000',
        'DTEND;TZID=Europe/Berlin:20250422T100000', 'SUMMARY:Standup (early)'),
    ));
    // Window: 2025-03-11T00:00Z .. 2025-04-24T00:00Z. Summer time starts on 30 March.
    const rows = await readRows(kind, input({ url: `${feed.origin}/berlin.ics`, past_days: 14, future_days: 30 }, { now: new Date('2025-03-25T00:00:00Z') }));
    const got = rows.map((r) => [r.key, r.values.start, r.values.end, r.values.summary, r.values.status, r.values.recurring]);
    assert.deepEqual(got, [
      ['standup@example.com/2025-03-13T09:00:00Z', '2025-03-13T09:00:00.000Z', '2025-03-13T10:00:00.000Z', 'Standup', 'CONFIRMED', true],
      ['standup@example.com/2025-03-27T09:00:00Z', '2025-03-27T09:00:00.000Z', '2025-03-27T10:00:00.000Z', 'Standup', 'CONFIRMED', true],
      ['standup@example.com/2025-04-03T08:00:00Z', '2025-04-03T13:00:00.000Z', '2025-04-03T14:00:00.000Z', 'Standup (afternoon)', 'CONFIRMED', true],
      ['standup@example.com/2025-04-10T08:00:00Z', '2025-04-10T08:00:00.000Z', '2025-04-10T09:00:00.000Z', 'Standup', 'CANCELLED', true],
      ['standup@example.com/2025-05-01T08:00:00Z', '2025-04-22T07:00:00.000Z', '2025-04-22T08:00:00.000Z', 'Standup (early)', null, true],
    ]);
    for (const row of rows) assert.equal(row.values.uid, row.key);
    await assertIcalCellsAccepted(kind, rows);
  });

  it('reads a TZID the file does not define as the IANA zone it names (New York, DST on 9 March)', async () => {
    feed.ics('/ny.ics', calendar(vevent('UID:ny@example.com', 'DTSTART;TZID=America/New_York:20250306T100000', 'DURATION:PT1H',
      'RRULE:FREQ=WEEKLY;COUNT=3', 'RDATE;TZID=America/New_York:20250308T100000', 'SUMMARY:Sync')));
    const rows = await readRows(kind, input({ url: `${feed.origin}/ny.ics` }));
    assert.deepEqual(rows.map((r) => [r.key, r.values.start, r.values.end]), [
      ['ny@example.com/2025-03-06T15:00:00Z', '2025-03-06T15:00:00.000Z', '2025-03-06T16:00:00.000Z'],
      ['ny@example.com/2025-03-08T15:00:00Z', '2025-03-08T15:00:00.000Z', '2025-03-08T16:00:00.000Z'],
      ['ny@example.com/2025-03-13T14:00:00Z', '2025-03-13T14:00:00.000Z', '2025-03-13T15:00:00.000Z'],
      ['ny@example.com/2025-03-20T14:00:00Z', '2025-03-20T14:00:00.000Z', '2025-03-20T15:00:00.000Z'],
    ]);
  });

  it('gives all-day events 00:00 UTC of their first day and of the day after their last, all_day true', async () => {
    feed.ics('/days.ics', calendar(
      vevent('UID:offsite@example.com', 'DTSTART;VALUE=DATE:20250310', 'DTEND;VALUE=DATE:20250312', 'SUMMARY:Offsite'),
      vevent('UID:holiday@example.com', 'DTSTART;VALUE=DATE:20250401', 'SUMMARY:Holiday'),
      vevent('UID:birthday@example.com', 'DTSTART;VALUE=DATE:19900315', 'RRULE:FREQ=YEARLY', 'SUMMARY:Birthday'),
    ));
    // Window: 2025-02-03 .. 2026-03-05: one birthday in it.
    const rows = byKey(await readRows(kind, input({ url: `${feed.origin}/days.ics` })));
    assert.deepEqual(Object.keys(rows), ['offsite@example.com', 'holiday@example.com', 'birthday@example.com/2025-03-15']);
    assert.deepEqual([rows['offsite@example.com'].start, rows['offsite@example.com'].end, rows['offsite@example.com'].all_day], ['2025-03-10T00:00:00.000Z', '2025-03-12T00:00:00.000Z', true]);
    assert.deepEqual([rows['holiday@example.com'].start, rows['holiday@example.com'].end, rows['holiday@example.com'].recurring], ['2025-04-01T00:00:00.000Z', '2025-04-02T00:00:00.000Z', false]);
    const birthday = rows['birthday@example.com/2025-03-15'];
    assert.deepEqual([birthday.start, birthday.end, birthday.all_day, birthday.recurring], ['2025-03-15T00:00:00.000Z', '2025-03-16T00:00:00.000Z', true, true]);
    await assertIcalCellsAccepted(kind, Object.entries(rows).map(([key, values]) => ({ key, values })));
  });

  it('gives one row per key: an RDATE on a rule date, copies of one instance or of one event (the highest SEQUENCE wins)', async () => {
    feed.ics('/copies.ics', calendar(
      vevent('UID:daily@example.com', 'DTSTART:20250310T090000Z', 'RRULE:FREQ=DAILY;COUNT=2', 'RDATE:20250311T090000Z', 'SUMMARY:Daily'),
      // One instance of a series whose master is not in the feed, sent twice.
      vevent('UID:invite@example.com', 'RECURRENCE-ID:20250312T090000Z', 'DTSTART:20250312T090000Z', 'SUMMARY:Old copy', 'SEQUENCE:2'),
      vevent('UID:invite@example.com', 'RECURRENCE-ID:20250312T090000Z', 'DTSTART:20250312T100000Z', 'SUMMARY:New copy', 'SEQUENCE:3'),
      vevent('UID:twice@example.com', 'SEQUENCE:3', 'DTSTART:20250313T090000Z', 'SUMMARY:Newer'),
      vevent('UID:twice@example.com', 'SEQUENCE:2', 'DTSTART:20250313T090000Z', 'SUMMARY:Older'),
    ));
    const rows = await readRows(kind, input({ url: `${feed.origin}/copies.ics` }));
    assert.deepEqual(rows.map((r) => [r.key, r.values.summary, r.values.start, r.values.recurring]), [
      ['daily@example.com/2025-03-10T09:00:00Z', 'Daily', '2025-03-10T09:00:00.000Z', true],
      ['daily@example.com/2025-03-11T09:00:00Z', 'Daily', '2025-03-11T09:00:00.000Z', true],
      ['invite@example.com/2025-03-12T09:00:00Z', 'New copy', '2025-03-12T10:00:00.000Z', true],
      ['twice@example.com', 'Newer', '2025-03-13T09:00:00.000Z', false],
    ]);
  });

  describe('pages', () => {
    const many = (n: number, prefix = 'e') =>
      calendar(...Array.from({ length: n }, (_, i) => vevent(`UID:${prefix}${String(i).padStart(4, '0')}`, 'DTSTART:20250310T090000Z', 'DTEND:20250310T100000Z', `SUMMARY:Event ${i}`)));

    it('gives pages of at most 500 rows, each a snapshot, the last with a null cursor; a page cursor resumes with exactly the rest', async () => {
      feed.ics('/many.ics', many(1234));
      const url = `${feed.origin}/many.ics`;
      const pages = await readPages(kind, input({ url }));
      assert.deepEqual(pages.map((p) => p.rows.length), [500, 500, 234]);
      assert.deepEqual(pages.map((p) => p.snapshot), [true, true, true]);
      assert.equal(pages[2].cursor, null);
      assert.notEqual(pages[0].cursor, null);
      assert.deepEqual(pages.flatMap((p) => p.rows.map((r) => r.key)), Array.from({ length: 1234 }, (_, i) => `e${String(i).padStart(4, '0')}`));
      // The cursor is JSON, as the sources plugin stores it.
      const afterFirst = JSON.parse(JSON.stringify(pages[0].cursor));
      const resumed = await readPages(kind, input({ url }, { cursor: afterFirst }));
      assert.deepEqual(resumed.map((p) => p.rows.map((r) => r.key)), [pages[1].rows.map((r) => r.key), pages[2].rows.map((r) => r.key)]);
      assert.deepEqual(resumed.map((p) => p.cursor), [pages[1].cursor, null]);
      const last = await readPages(kind, input({ url }, { cursor: pages[1].cursor }));
      assert.deepEqual(last.map((p) => p.rows.map((r) => r.key)), [pages[2].rows.map((r) => r.key)]);
    });

    it('gives 500 rows as one page, and an empty feed as one empty page, so a snapshot always ends', async () => {
      feed.ics('/500.ics', many(500));
      const full = await readPages(kind, input({ url: `${feed.origin}/500.ics` }));
      assert.deepEqual(full.map((p) => [p.rows.length, p.cursor, p.snapshot]), [[500, null, true]]);
      feed.ics('/empty.ics', calendar());
      assert.deepEqual(await readPages(kind, input({ url: `${feed.origin}/empty.ics` })), [{ rows: [], cursor: null, snapshot: true }]);
    });

    it('refuses a cursor cut from other rows (the feed changed, or the window moved) with CursorExpired', async () => {
      feed.ics('/changing.ics', many(700));
      const url = `${feed.origin}/changing.ics`;
      const [first] = await readPages(kind, input({ url }));
      feed.ics('/changing.ics', many(700, 'x'));
      await readError(kind, input({ url }, { cursor: first.cursor }), CursorExpired);
      feed.ics('/changing.ics', many(700));
      await readError(kind, input({ url }, { cursor: first.cursor, now: new Date('2025-03-06T12:00:00Z') }), CursorExpired);
      await readError(kind, input({ url }, { cursor: { page: 'one' } }), CursorExpired);
      assert.equal((await readPages(kind, input({ url }, { cursor: first.cursor })))[0].rows[0].key, 'e0500');
    });
  });

  it('reads a gzip-encoded answer', async () => {
    const body = gzipSync(calendar(vevent('UID:zip@example.com', 'DTSTART:20250310T090000Z', 'SUMMARY:Compressed')));
    feed.serve('/zip.ics', (req, res) => {
      assert.match(String(req.headers['accept-encoding']), /gzip/);
      res.writeHead(200, { 'content-type': 'text/calendar', 'content-encoding': 'gzip', 'content-length': String(body.length) });
      res.end(body);
    });
    const rows = await readRows(kind, input({ url: `${feed.origin}/zip.ics` }));
    assert.deepEqual(rows.map((r) => [r.key, r.values.summary, r.values.start, r.values.end]), [['zip@example.com', 'Compressed', '2025-03-10T09:00:00.000Z', '2025-03-10T09:00:00.000Z']]);
  });

  it('leaves out an event it cannot read and keeps the others; cuts text to what the field types take', async () => {
    feed.ics('/odd.ics', calendar(
      vevent('UID:broken@example.com', 'DTSTART:not-a-date', 'SUMMARY:Broken'),
      vevent('UID:long@example.com', 'DTSTART:20250310T090000Z', `SUMMARY:${'é'.repeat(10_050)}`, 'DESCRIPTION:a\u0000b'),
    ));
    const rows = await readRows(kind, input({ url: `${feed.origin}/odd.ics` }));
    assert.deepEqual(rows.map((r) => r.key), ['long@example.com']);
    assert.equal(rows[0].values.summary, 'é'.repeat(10_000));
    assert.equal(rows[0].values.description, 'ab');
    await assertIcalCellsAccepted(kind, rows);
  });
});
