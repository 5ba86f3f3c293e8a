import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { RateLimited, SourceUnavailable } from '../../../plugins/sources/public.ts';
import { icalEventsKind } from '../../../plugins/integration-ical/kind.ts';
import { retryAfterSeconds } from '../../../plugins/integration-ical/feed-fetch.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';
import { startFeedServer, type FeedServer } from './feed-server.ts';
import { calendar, input, readError, readRows, vevent } from './fixtures.ts';

/** A path as private feeds have them: the secret is in it, and no message may repeat it. */
const SECRET_PATH = '/calendar/ical/private-5ecr3t7oken/basic.ics';

describe('integration-ical: a feed that cannot be read', () => {
  storageIndependent();
  let feed: FeedServer;
  const kind = icalEventsKind();
  const url = () => `${feed.origin}${SECRET_PATH}`;
  const answer = (status: number, headers: Record<string, string> = {}, body = '') =>
    feed.serve(SECRET_PATH, (_req, res) => {
      res.writeHead(status, headers);
      res.end(body);
    });
  beforeEach(async () => {
    feed = await startFeedServer();
  });
  afterEach(async () => {
    await feed.close();
  });

  it('fails a 404 and a 500 with SourceUnavailable naming the status and the host, never the path', async () => {
    answer(404);
    const missing = await readError(kind, input({ url: url() }), SourceUnavailable);
    assert.equal(missing.message, `The feed at 127.0.0.1:${feed.port} answered HTTP 404 Not Found.`);
    answer(500, {}, 'stack trace with private-5ecr3t7oken');
    const broken = await readError(kind, input({ url: url() }), SourceUnavailable);
    assert.equal(broken.message, `The feed at 127.0.0.1:${feed.port} answered HTTP 500 Internal Server Error.`);
  });

  it('turns a 429 into RateLimited with the seconds of Retry-After, 60 without one', async () => {
    answer(429, { 'retry-after': '120' });
    assert.equal((await readError(kind, input({ url: url() }), RateLimited)).seconds, 120);
    answer(429);
    assert.equal((await readError(kind, input({ url: url() }), RateLimited)).seconds, 60);
    answer(429, { 'retry-after': new Date(Date.now() + 90_000).toUTCString() });
    const dated = (await readError(kind, input({ url: url() }), RateLimited)).seconds;
    assert.ok(dated >= 88 && dated <= 90, String(dated));
    assert.equal(retryAfterSeconds('soon'), 60);
    assert.equal(retryAfterSeconds('0'), 1);
    assert.equal(retryAfterSeconds('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('2015-10-21T07:27:00Z')), 60);
  });

  it('refuses a body over 20 MiB as announced, and one that grows past the cap as it streams or as it unzips', async () => {
    feed.serve(SECRET_PATH, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/calendar', 'content-length': String(21 * 1024 * 1024) });
      res.write('BEGIN:VCALENDAR\r\n');
    });
    const announced = await readError(kind, input({ url: url() }), SourceUnavailable);
    assert.equal(announced.message, `The feed at 127.0.0.1:${feed.port} is larger than 20 MiB, the most a source reads.`);
    const small = icalEventsKind({ maxBytes: 64 * 1024 });
    feed.serve(SECRET_PATH, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/calendar' });
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const more = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', more);
      };
      res.write('BEGIN:VCALENDAR\r\n');
      more();
    });
    assert.match((await readError(small, input({ url: url() }), SourceUnavailable)).message, /larger than 64 KiB/);
    const bomb = gzipSync(Buffer.alloc(1024 * 1024, 'x'));
    assert.ok(bomb.length < 64 * 1024);
    feed.serve(SECRET_PATH, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/calendar', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    assert.match((await readError(small, input({ url: url() }), SourceUnavailable)).message, /larger than 64 KiB/);
  });

  it('fails what is not iCalendar: an HTML page, a broken file, a corrupt gzip body, an unknown encoding', async () => {
    answer(200, { 'content-type': 'text/html' }, '<!DOCTYPE html><html><body>Sign in</body></html>');
    assert.match((await readError(kind, input({ url: url() }), SourceUnavailable)).message, /is not an iCalendar file/);
    answer(200, { 'content-type': 'text/calendar' }, 'BEGIN:VCALENDAR\r\nthis line has no colon\r\nEND:VCALENDAR\r\n');
    assert.match((await readError(kind, input({ url: url() }), SourceUnavailable)).message, /is not valid iCalendar/);
    answer(200, { 'content-type': 'text/calendar', 'content-encoding': 'gzip' }, 'not gzip at all');
    assert.match((await readError(kind, input({ url: url() }), SourceUnavailable)).message, /compressed body is corrupt/);
    answer(200, { 'content-type': 'text/calendar', 'content-encoding': 'constructor' }, 'BEGIN:VCALENDAR');
    assert.match((await readError(kind, input({ url: url() }), SourceUnavailable)).message, /an encoding that cannot be read \(constructor\)/);
  });

  it('fails an unreachable host, a feed that does not answer in time, and a read that is stopped', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = await readError(kind, input({ url: `http://127.0.0.1:${port}${SECRET_PATH}` }), SourceUnavailable);
    assert.equal(refused.message, `The feed at 127.0.0.1:${port} could not be read: connection refused.`);

    feed.serve(SECRET_PATH, () => undefined);
    const slow = await readError(icalEventsKind({ timeoutMs: 200 }), input({ url: url() }), SourceUnavailable);
    assert.equal(slow.message, `The feed at 127.0.0.1:${feed.port} was not read within 0.2 s.`);

    const stop = new AbortController();
    setTimeout(() => stop.abort(), 50);
    const stopped = await readError(kind, input({ url: url() }, { signal: stop.signal }), SourceUnavailable);
    assert.match(stopped.message, /stopped/);
    for (const message of [refused.message, slow.message, stopped.message]) assert.doesNotMatch(message, /5ecr3t/);
  });

  it('refuses a feed whose recurrences expand past the limits rather than giving part of it', async () => {
    feed.ics('/hourly.ics', calendar(vevent('UID:hourly@example.com', 'DTSTART:20250301T000000Z', 'RRULE:FREQ=HOURLY', 'SUMMARY:Tick')));
    const rows = icalEventsKind({ maxOccurrences: 1000 });
    assert.match((await readError(rows, input({ url: `${feed.origin}/hourly.ics` }), SourceUnavailable)).message, /more than 1000 events in the window/);
    feed.ics('/daily.ics', calendar(vevent('UID:daily@example.com', 'DTSTART:19900101T090000Z', 'RRULE:FREQ=DAILY', 'SUMMARY:Since 1990')));
    const steps = icalEventsKind({ maxSteps: 5000 });
    assert.match((await readError(steps, input({ url: `${feed.origin}/daily.ics` }), SourceUnavailable)).message, /more than 5000 steps/);
    // The same feed within the default limits: 35 years of days before the window are stepped through.
    const daily = await readRows(kind, input({ url: `${feed.origin}/daily.ics`, past_days: 1, future_days: 2 }));
    assert.deepEqual(daily.map((r) => r.key), ['daily@example.com/2025-03-05T09:00:00Z', 'daily@example.com/2025-03-06T09:00:00Z', 'daily@example.com/2025-03-07T09:00:00Z']);
  });
});
