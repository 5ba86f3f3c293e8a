import assert from 'node:assert/strict';
import type { SourceInput, SourceKind, SourcePage, SourceRow } from '../../../plugins/sources/public.ts';
import type { IcalEventsConfig } from '../../../plugins/integration-ical/schemas.ts';
import { assertCellsAccepted } from '../sources/cells-accepted.ts';

/** An iCalendar file as producers write it: CRLF line ends. */
export function calendar(...parts: string[]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Tessera tests//EN', ...parts, 'END:VCALENDAR', ''].join('\r\n');
}

export function vevent(...lines: string[]): string {
  return ['BEGIN:VEVENT', 'DTSTAMP:20250101T000000Z', ...lines, 'END:VEVENT'].join('\r\n');
}

/** Europe/Berlin as Google and Outlook write it. */
export const BERLIN = [
  'BEGIN:VTIMEZONE',
  'TZID:Europe/Berlin',
  'BEGIN:DAYLIGHT',
  'TZOFFSETFROM:+0100',
  'TZOFFSETTO:+0200',
  'TZNAME:CEST',
  'DTSTART:19700329T020000',
  'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
  'END:DAYLIGHT',
  'BEGIN:STANDARD',
  'TZOFFSETFROM:+0200',
  'TZOFFSETTO:+0100',
  'TZNAME:CET',
  'DTSTART:19701025T030000',
  'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
  'END:STANDARD',
  'END:VTIMEZONE',
].join('\r\n');

export type ReadInput = SourceInput<IcalEventsConfig> & { cursor: unknown };

export function input(config: IcalEventsConfig, more: Partial<ReadInput> = {}): ReadInput {
  return {
    config,
    credentials: null,
    signal: new AbortController().signal,
    allowPrivateNetworks: true,
    now: new Date('2025-03-05T12:00:00Z'),
    cursor: null,
    ...more,
  };
}

export async function readPages(kind: SourceKind<IcalEventsConfig>, given: ReadInput): Promise<SourcePage[]> {
  const pages: SourcePage[] = [];
  for await (const page of kind.read(given)) pages.push(page);
  return pages;
}

export async function readRows(kind: SourceKind<IcalEventsConfig>, given: ReadInput): Promise<SourceRow[]> {
  return (await readPages(kind, given)).flatMap((p) => p.rows);
}

/** What `read` threw: the test fails if it threw nothing, or not an instance of `type`. */
export async function readError<T>(kind: SourceKind<IcalEventsConfig>, given: ReadInput, type: new (...args: any[]) => T): Promise<T> {
  try {
    await readPages(kind, given);
  } catch (err) {
    assert.ok(err instanceof type, `expected ${type.name}, got ${err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err)}`);
    return err;
  }
  assert.fail(`expected ${type.name}, the read succeeded`);
}

/** Every value of `rows` as the databases plugin would take it through the API (see the sources tests' `assertCellsAccepted`). */
export async function assertIcalCellsAccepted(kind: SourceKind<IcalEventsConfig>, rows: SourceRow[]): Promise<void> {
  assertCellsAccepted(await kind.properties(input({ url: 'https://example.com/cal.ics' })), rows);
}
