import { Type, type Static } from '../../core/schema.ts';
import { ActionFailed, type ProviderAction } from '../integrations/public.ts';
import type { GoogleCalendarClient, NewEvent } from './calendar-client.ts';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$/i;
/**
 * What `start` and `end` take when saved: a date, a date-time, or text holding a placeholder (`{{record.due}}`),
 * which is checked once it is filled, when the step runs.
 */
const WHEN = '^(?:\\d{4}-\\d{2}-\\d{2}(?:[Tt]\\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,9})?(?:[Zz]|[+-]\\d{2}:\\d{2})?)?|.*\\{\\{.*\\}\\}.*)$';

const when = (which: string) =>
  Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: WHEN,
    description: `When the event ${which}: an RFC 3339 date-time (\`2025-03-14T09:30:00+01:00\`; without an offset, \`time_zone\` says where) or a date (\`2025-03-14\`) for an all-day event.`,
  });

const CreateEvent = Type.Object({
  calendar_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1024,
      default: 'primary',
      description: 'The calendar: `primary` (the connected account\'s own), or a calendar id (an email address, `…@group.calendar.google.com`).',
    }),
  ),
  summary: Type.String({ minLength: 1, maxLength: 1024, description: 'The event\'s title.' }),
  description: Type.Optional(Type.String({ maxLength: 8192 })),
  start: when('starts'),
  end: when('ends (exclusive for all-day events; the same date as `start` is a one-day event)'),
  time_zone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'An IANA time zone (`Europe/Paris`) for date-times given without an offset.' })),
});
type CreateEvent = Static<typeof CreateEvent>;

type Moment = { kind: 'date'; value: string; day: number } | { kind: 'dateTime'; value: string; offset: boolean; instant: number };

function validDate(y: string, m: string, d: string): number | null {
  const at = Date.UTC(Number(y), Number(m) - 1, Number(d));
  const back = new Date(at);
  return back.getUTCFullYear() === Number(y) && back.getUTCMonth() === Number(m) - 1 && back.getUTCDate() === Number(d) ? at : null;
}

/** Reads `start` or `end` once placeholders are filled; anything else fails the step with a sentence saying which. */
function readWhen(name: string, raw: unknown): Moment {
  const value = typeof raw === 'string' ? raw.trim() : raw === null || raw === undefined ? '' : String(raw);
  if (!value) throw new ActionFailed(`${name} is empty.`);
  const date = DATE.exec(value);
  if (date) {
    const day = validDate(date[1], date[2], date[3]);
    if (day === null) throw new ActionFailed(`${name} (${value.slice(0, 40)}) is not a date of the calendar.`);
    return { kind: 'date', value, day };
  }
  const time = DATE_TIME.exec(value);
  if (time) {
    const day = validDate(time[1], time[2], time[3]);
    if (day === null || Number(time[4]) > 23 || Number(time[5]) > 59 || Number(time[6]) > 59) throw new ActionFailed(`${name} (${value.slice(0, 40)}) is not a time of the calendar.`);
    const offset = time[8] !== undefined;
    // Without an offset both ends are in the same time zone, so reading them as UTC orders them correctly.
    const instant = Date.parse(offset ? value.toUpperCase() : `${value.toUpperCase()}Z`);
    return { kind: 'dateTime', value: value.toUpperCase(), offset, instant };
  }
  throw new ActionFailed(`${name} (${value.slice(0, 40)}) is neither an RFC 3339 date-time (2025-03-14T09:30:00+01:00) nor a date (2025-03-14).`);
}

function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The event's `start` and `end` as Google takes them, from the step's config once filled. */
export function eventTimes(config: Pick<CreateEvent, 'start' | 'end' | 'time_zone'>): Pick<NewEvent, 'start' | 'end'> {
  const start = readWhen('start', config.start);
  const end = readWhen('end', config.end);
  const zone = typeof config.time_zone === 'string' && config.time_zone.trim() ? config.time_zone.trim() : undefined;
  if (zone !== undefined && !knownTimeZone(zone)) throw new ActionFailed(`time_zone (${zone.slice(0, 64)}) is not an IANA time zone such as Europe/Paris.`);
  if (start.kind === 'date' && end.kind === 'date') {
    if (end.day < start.day) throw new ActionFailed(`end (${end.value}) is before start (${start.value}).`);
    // Google's all-day end is exclusive: an end on the start's own day is taken as a one-day event.
    const last = end.day === start.day ? new Date(start.day + 86_400_000).toISOString().slice(0, 10) : end.value;
    return { start: { date: start.value }, end: { date: last } };
  }
  if (start.kind === 'dateTime' && end.kind === 'dateTime') {
    if (zone === undefined && (!start.offset || !end.offset)) throw new ActionFailed('A date-time without an offset (Z or ±hh:mm) needs time_zone to say where it is.');
    if (start.offset !== end.offset) throw new ActionFailed('start and end must both have an offset, or neither (with time_zone).');
    if (end.instant <= start.instant) throw new ActionFailed(`end (${end.value}) is not after start (${start.value}).`);
    const at = (value: string) => ({ dateTime: value, ...(zone !== undefined ? { timeZone: zone } : {}) });
    return { start: at(start.value), end: at(end.value) };
  }
  throw new ActionFailed('start and end must both be dates (an all-day event) or both date-times.');
}

/** `google_calendar_create_event`, through the API's `events.insert`. */
export function googleCalendarActions(client: GoogleCalendarClient): ProviderAction[] {
  const create: ProviderAction<CreateEvent> = {
    type: 'google_calendar_create_event',
    summary: 'Create an event in a Google calendar',
    schema: CreateEvent,
    // A retry after a lost answer would create the event twice.
    retrySafe: false,
    async run({ credentials, config }) {
      const calendarId = typeof config.calendar_id === 'string' && config.calendar_id.trim() ? config.calendar_id : 'primary';
      const summary = typeof config.summary === 'string' ? config.summary.trim() : '';
      if (!summary) throw new ActionFailed('summary is empty.');
      const event: NewEvent = {
        summary,
        ...(typeof config.description === 'string' && config.description ? { description: config.description } : {}),
        ...eventTimes(config),
      };
      const made = await client.insertEvent(credentials.access_token ?? '', calendarId, event);
      return { id: made.id, url: typeof made.htmlLink === 'string' ? made.htmlLink : null };
    },
  };
  return [create];
}
