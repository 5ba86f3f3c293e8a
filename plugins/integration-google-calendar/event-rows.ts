import { emailCell, instantCell, LONG_TEXT_MAX, textCell, TEXT_MAX, urlCell, type SourceProperty, type SourceRow } from '../sources/public.ts';
import type { CalendarEvent } from './calendar-client.ts';

/**
 * What a `google_calendar.events` source's rows hold, and how an event (Google's `Event` resource) becomes one. Every
 * value is one the databases field type of its property accepts through the API (its `fromApi`): what a type would
 * refuse becomes null (an empty cell) or is cut to the type's length, so no event is refused for one odd value.
 */

export const STATUSES = ['confirmed', 'tentative', 'cancelled'] as const;

/** The fields a source's database gets; `id` (Google's event id) is the row key, `summary` the natural title. */
export function eventProperties(): SourceProperty[] {
  return [
    { key: 'id', name: 'Event ID', type: 'text', unique: true },
    { key: 'summary', name: 'Summary', type: 'text' },
    { key: 'description', name: 'Description', type: 'long_text' },
    { key: 'location', name: 'Location', type: 'text' },
    { key: 'start', name: 'Start', type: 'datetime' },
    { key: 'end', name: 'End', type: 'datetime' },
    { key: 'all_day', name: 'All day', type: 'checkbox' },
    {
      key: 'status',
      name: 'Status',
      type: 'single_select',
      options: { choices: [{ label: 'confirmed', color: 'green' }, { label: 'tentative', color: 'yellow' }, { label: 'cancelled', color: 'red' }] },
    },
    { key: 'organizer', name: 'Organizer', type: 'email' },
    { key: 'attendees', name: 'Attendees', type: 'long_text' },
    { key: 'html_link', name: 'Link', type: 'url' },
    { key: 'recurring_event_id', name: 'Recurring event ID', type: 'text' },
    { key: 'updated', name: 'Updated', type: 'datetime' },
  ];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** RFC 3339 as Google writes `dateTime` and `updated`: always with `Z` or an offset. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/** The single_select's label (the API takes a choice by its exact label); a status outside the three is no choice. */
export function statusCell(value: unknown): string | null {
  return typeof value === 'string' && (STATUSES as readonly string[]).includes(value) ? value : null;
}

/** An RFC 3339 date-time with its offset (Google's `dateTime`, `updated`) as an instant in UTC; null otherwise. */
export function dateTimeCell(value: unknown): string | null {
  return typeof value === 'string' && DATE_TIME.test(value.trim()) ? instantCell(Date.parse(value.trim().toUpperCase())) : null;
}

/**
 * An event's `start` or `end`: `{ dateTime }` (with an offset, as Google always answers it) is that instant; `{ date }`
 * (an all-day event) is 00:00 UTC of that date. Google's all-day `end` is exclusive, and kept so: a one-day event on
 * 14 March ends at 2025-03-15T00:00:00.000Z.
 */
export function momentCell(value: unknown): { at: string | null; allDay: boolean } | null {
  if (!value || typeof value !== 'object') return null;
  const { date, dateTime } = value as { date?: unknown; dateTime?: unknown };
  if (typeof dateTime === 'string') return { at: dateTimeCell(dateTime), allDay: false };
  if (typeof date !== 'string') return null;
  const day = DATE.exec(date);
  if (!day) return { at: null, allDay: true };
  const at = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
  // 2025-02-30 is no date: Date.UTC would roll it over into March.
  const valid = new Date(at).getUTCDate() === Number(day[3]) && new Date(at).getUTCMonth() === Number(day[2]) - 1;
  return { at: valid ? instantCell(at) : null, allDay: true };
}

/**
 * The attendees' addresses, comma-joined in Google's order (`ada@example.com, grace@example.com`); rooms and other
 * resources (`resource: true`) are left out, being places rather than people. Null without any.
 */
export function attendeesCell(value: unknown): string | null {
  if (!Array.isArray(value)) return null;
  const addresses: string[] = [];
  let length = 0;
  for (const attendee of value) {
    if (!attendee || typeof attendee !== 'object' || (attendee as { resource?: unknown }).resource === true) continue;
    const address = emailCell((attendee as { email?: unknown }).email);
    if (!address) continue;
    // Whole addresses only: a list past the long_text limit ends at the last one that fits.
    length += address.length + (addresses.length > 0 ? 2 : 0);
    if (length > LONG_TEXT_MAX) break;
    addresses.push(address);
  }
  return addresses.length > 0 ? addresses.join(', ') : null;
}

/** An event as a row with every property's value. */
export function eventRow(event: CalendarEvent): SourceRow {
  const start = momentCell(event.start);
  const end = momentCell(event.end);
  return {
    key: event.id,
    values: {
      id: event.id,
      summary: textCell(event.summary, TEXT_MAX),
      description: textCell(event.description, LONG_TEXT_MAX),
      location: textCell(event.location, TEXT_MAX),
      start: start?.at ?? null,
      end: end?.at ?? null,
      all_day: start?.allDay ?? false,
      status: statusCell(event.status),
      organizer: emailCell((event.organizer as { email?: unknown } | undefined)?.email),
      attendees: attendeesCell(event.attendees),
      html_link: urlCell(event.htmlLink),
      recurring_event_id: textCell(event.recurringEventId, TEXT_MAX),
      updated: dateTimeCell(event.updated),
    },
  };
}

/** An event an incremental read lists as deleted (`status: cancelled`): a row gone at the source. */
export function deletedRow(event: CalendarEvent): SourceRow {
  return { key: event.id, values: {}, deleted: true };
}
