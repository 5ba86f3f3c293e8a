import ICAL from 'ical.js';

/**
 * Instants from iCalendar times. ical.js knows the zones a file defines (VTIMEZONE) and UTC; a time in any other
 * zone it reads as floating, which it would place at UTC. Such a TZID is usually an IANA name the producer did not
 * bother to define, and a floating time without TZID means "wall clock wherever the calendar is": both are read here
 * in an IANA zone through Intl, so DST shifts come out right.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** Whether Node's time zone database knows `name` (`Europe/Berlin`; not Outlook's `W. Europe Standard Time`). */
export function isIanaZone(name: string | null | undefined): name is string {
  if (!name) return false;
  try {
    formatterOf(name);
    return true;
  } catch {
    return false;
  }
}

/** Milliseconds to add to `instant` to read the clocks of `zone`. */
function offsetMs(zone: string, instant: number): number {
  const parts = Object.fromEntries(formatterOf(zone).formatToParts(new Date(instant)).map((p) => [p.type, p.value]));
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return wall - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant the clocks of `zone` show `wall` (a wall time written as UTC ms). A wall time skipped by a DST change
 * takes the offset from before the change, as RFC 5545 §3.3.5 says.
 */
function wallToInstant(zone: string, wall: number): number {
  const guess = wall - offsetMs(zone, wall);
  return wall - offsetMs(zone, guess);
}

/**
 * When `time` happens, in ms since the epoch. A date (an all-day value) is 00:00 UTC of that day. `tzid` is the
 * TZID parameter the time was written with; `calendarZone` is where floating times are read (the calendar's
 * X-WR-TIMEZONE when it is an IANA zone, else UTC).
 */
export function instantOf(time: ICAL.Time, tzid: string | null, calendarZone: string): number {
  if (time.isDate) return Date.UTC(time.year, time.month - 1, time.day);
  if (time.zone !== ICAL.Timezone.localTimezone) return time.toUnixTime() * 1000;
  const wall = Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
  const zone = isIanaZone(tzid) ? tzid : calendarZone;
  return zone === 'UTC' ? wall : wallToInstant(zone, wall);
}
