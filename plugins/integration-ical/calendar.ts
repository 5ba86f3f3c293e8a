import ICAL from 'ical.js';
import { SourceUnavailable } from '../sources/public.ts';
import { isIanaZone } from './ical-time.ts';

/** One VEVENT's components by UID: its master (the latest by SEQUENCE) and its overridden instances (RECURRENCE-ID). */
export interface EventGroup {
  uid: string;
  master: ICAL.Component | null;
  overrides: ICAL.Component[];
  /** Where the event's floating times are read: its calendar's X-WR-TIMEZONE when that is an IANA zone, else UTC. */
  zone: string;
}

/** Longer UIDs are no identifiers a field can key (the text type keeps 10,000 characters, a UID plus its recurrence). */
const MAX_UID = 2000;

/** Parses a feed into its VCALENDARs; `SourceUnavailable` when it is not iCalendar. */
export function parseCalendars(text: string, host: string): ICAL.Component[] {
  if (!/^\s*BEGIN:VCALENDAR/i.test(text)) throw new SourceUnavailable(`The feed at ${host} is not an iCalendar file (it does not begin with BEGIN:VCALENDAR).`);
  let parsed: unknown[];
  try {
    parsed = ICAL.parse(text);
  } catch (err) {
    throw new SourceUnavailable(`The feed at ${host} is not valid iCalendar: ${String((err as Error).message).slice(0, 200)}`);
  }
  // One component parses to its jCal array, several to an array of them.
  const roots = typeof parsed[0] === 'string' ? [parsed] : parsed;
  const calendars = roots.map((jcal) => new ICAL.Component(jcal as unknown[])).filter((c) => c.name === 'vcalendar');
  if (calendars.length === 0) throw new SourceUnavailable(`The feed at ${host} holds no VCALENDAR.`);
  return calendars;
}

const sequenceOf = (c: ICAL.Component) => {
  const n = Number(c.getFirstPropertyValue('sequence'));
  return Number.isFinite(n) ? n : 0;
};

/**
 * The feed's events grouped by UID, in the order they first appear. Of two masters (or two overrides of one instance)
 * the higher SEQUENCE wins, then the later one; an event without a UID (RFC 5545 requires one) has no key and is left out.
 */
export function eventGroups(calendars: ICAL.Component[]): EventGroup[] {
  const groups = new Map<string, EventGroup>();
  for (const calendar of calendars) {
    const declared = calendar.getFirstPropertyValue('x-wr-timezone');
    const zone = typeof declared === 'string' && isIanaZone(declared.trim()) ? declared.trim() : 'UTC';
    for (const component of calendar.getAllSubcomponents('vevent')) {
      const uid = component.getFirstPropertyValue('uid');
      if (typeof uid !== 'string' || uid.trim() === '' || uid.length > MAX_UID) continue;
      let group = groups.get(uid);
      if (!group) groups.set(uid, (group = { uid, master: null, overrides: [], zone }));
      if (component.hasProperty('recurrence-id')) group.overrides.push(component);
      else if (!group.master || sequenceOf(component) >= sequenceOf(group.master)) group.master = component;
    }
  }
  // ical.js keeps the last exception it is given for an instance: the highest SEQUENCE goes last.
  for (const group of groups.values()) group.overrides.sort((a, b) => sequenceOf(a) - sequenceOf(b));
  return [...groups.values()];
}
