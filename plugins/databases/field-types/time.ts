import { invalidField } from '../../../core/errors.ts';
import { Type } from '../../../core/schema.ts';
import { InvalidCell } from '../errors.ts';
import { sqlString, sqlTrim, trimText } from './sql.ts';

/**
 * Dates and instants. One grammar (ISO 8601 / RFC 3339 subset, 4-digit years) for the API, CSV
 * and text conversions, written once for JS and PostgreSQL.
 */
export const DATE_FORMATS = ['iso', 'us', 'european', 'friendly'] as const;
export const TIME_FORMATS = ['24h', '12h'] as const;

/** Display options shared by datetime, created_at and updated_at. */
export const DateTimeOptionsSchema = Type.Object(
  {
    time_zone: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z][A-Za-z0-9_+/-]*$', default: 'UTC' }),
    date_format: Type.Union(DATE_FORMATS.map((f) => Type.Literal(f)), { default: 'iso' }),
    time_format: Type.Union(TIME_FORMATS.map((f) => Type.Literal(f)), { default: '24h' }),
  },
  { additionalProperties: false },
);
export interface DateTimeOptions {
  time_zone?: string;
  date_format?: (typeof DATE_FORMATS)[number];
  time_format?: (typeof TIME_FORMATS)[number];
}

// Groups: 1 year, 2 month, 3 day, 4 time part, 5 hour, 6 minute, 8 second, 10 fraction, 11 offset.
const DATETIME_SOURCE =
  '^([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])' +
  '([T ]([01][0-9]|2[0-3]):([0-5][0-9])(:([0-5][0-9])(\\.([0-9]{1,6})){0,1}){0,1}' +
  '(Z|[+-]([01][0-9]|2[0-3]):{0,1}[0-5][0-9]){0,1}){0,1}$';
const DATETIME_RE = new RegExp(DATETIME_SOURCE);
const OFFSET_AT_END = '(Z|[+-][0-9]{2}:{0,1}[0-9]{2})$';

interface Parsed {
  date: string;
  wall: number;
  hasTime: boolean;
  /** Minutes east of UTC, when the text names an offset. */
  offset?: number;
}

function utcMs(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): number {
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, s, ms);
  return t.getTime();
}

function parse(text: string): Parsed | undefined {
  const m = DATETIME_RE.exec(text);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y === 0) return undefined;
  const day = new Date(utcMs(y, mo, d));
  if (day.getUTCMonth() !== mo - 1) return undefined;
  const ms = m[10] ? Number(m[10].padEnd(3, '0').slice(0, 3)) : 0;
  const wall = utcMs(y, mo, d, Number(m[5] ?? 0), Number(m[6] ?? 0), Number(m[8] ?? 0), ms);
  let offset: number | undefined;
  if (m[11] === 'Z') offset = 0;
  else if (m[11]) {
    const digits = m[11].replace(':', '');
    offset = (digits[0] === '-' ? -1 : 1) * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
  }
  return { date: text.slice(0, 10), wall, hasTime: m[4] !== undefined, offset };
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', era: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Milliseconds to add to an instant to get the wall-clock time in `timeZone`. */
export function zoneOffsetMs(timeZone: string, instant: number): number {
  // The default zone needs no lookup: formatToParts costs ~20 µs, most of a million-row CSV export's time.
  if (timeZone === 'UTC') return 0;
  const parts = Object.fromEntries(formatterOf(timeZone).formatToParts(new Date(instant)).map((p) => [p.type, p.value]));
  const year = parts.era === 'BC' || parts.era === 'B' ? 1 - Number(parts.year) : Number(parts.year);
  const wall = utcMs(year, Number(parts.month), Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return wall - Math.floor(instant / 1000) * 1000;
}

/** The instant at which the clocks of `timeZone` show `wall` (a wall time expressed as UTC ms). */
export function wallToInstant(timeZone: string, wall: number): number {
  const guess = wall - zoneOffsetMs(timeZone, wall);
  return wall - zoneOffsetMs(timeZone, guess);
}

export function timeZoneOf(options: DateTimeOptions | undefined): string {
  return options?.time_zone ?? 'UTC';
}

/** Checks a time zone name against the IANA database Node knows; returns its canonical spelling. */
export function normalizeTimeZone(timeZone: string | undefined): string {
  const name = timeZone ?? 'UTC';
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    throw invalidField('/options/time_zone', `"${name}" is not an IANA time zone (e.g. "Europe/Paris").`);
  }
}

/** A stored date (a `YYYY-MM-DD` string, or a Date from the driver) → `YYYY-MM-DD`. */
export function dateOut(value: unknown): string {
  if (typeof value === 'string') return value.slice(0, 10);
  const d = value as Date;
  // node-postgres builds local midnight, PGlite UTC midnight: a UTC midnight can only be the latter,
  // because no zone's offset is a multiple of 24 hours.
  const utcMidnight = d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && d.getUTCSeconds() === 0 && d.getUTCMilliseconds() === 0;
  const [y, m, day] = utcMidnight ? [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()] : [d.getFullYear(), d.getMonth() + 1, d.getDate()];
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

// PostgreSQL's text form of a timestamptz (DateStyle ISO): date, time, fraction, offset hours, minutes, seconds.
const PG_INSTANT = /^([0-9]{4}-[0-9]{2}-[0-9]{2}) ([0-9]{2}:[0-9]{2}:[0-9]{2})(\.[0-9]+)?([+-][0-9]{2})(?::([0-9]{2}))?(?::([0-9]{2}))?$/;

/**
 * A stored instant → ISO 8601 UTC with milliseconds. Records are read with timestamps as
 * PostgreSQL prints them (building a Date per cell was the largest cost of a page); in UTC that
 * is a matter of punctuation.
 */
export function instantOut(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  const text = String(value);
  // The rows of one write share their times (now() is the transaction's): an import presents 100,000 alike.
  if (text === lastInstant.text) return lastInstant.out;
  const out = instantText(text);
  lastInstant = { text, out };
  return out;
}

let lastInstant = { text: '', out: '' };

function instantText(text: string): string {
  const m = PG_INSTANT.exec(text);
  if (!m) return new Date(text).toISOString();
  const fraction = (m[3] ?? '.').padEnd(4, '0').slice(0, 4);
  if (m[4] === '+00' && !m[5] && !m[6]) return `${m[1]}T${m[2]}${fraction}Z`;
  const sign = m[4][0] === '-' ? -1 : 1;
  const offsetMs = sign * ((Number(m[4].slice(1)) * 60 + Number(m[5] ?? 0)) * 60 + Number(m[6] ?? 0)) * 1000;
  return new Date(Date.parse(`${m[1]}T${m[2]}${fraction}Z`) - offsetMs).toISOString();
}

/** API input for a date cell: exactly `YYYY-MM-DD`. */
export function dateIn(value: unknown): string {
  if (typeof value !== 'string') throw new InvalidCell('Must be a date as "YYYY-MM-DD".');
  const p = parse(value);
  if (!p || p.hasTime) throw new InvalidCell('Must be a date as "YYYY-MM-DD".');
  return p.date;
}

/** API input for a datetime cell: ISO 8601 with `Z` or an offset; a bare date is midnight in the field's zone. */
export function instantIn(value: unknown, timeZone: string): string {
  const message = 'Must be an ISO 8601 date-time with "Z" or an offset (2024-05-01T09:30:00Z), or a date (YYYY-MM-DD).';
  if (typeof value !== 'string') throw new InvalidCell(message);
  const p = parse(value);
  if (!p || (p.hasTime && p.offset === undefined)) throw new InvalidCell(message);
  return new Date(p.offset === undefined ? wallToInstant(timeZone, p.wall) : p.wall - p.offset * 60_000).toISOString();
}

/** CSV date: a date, or a date-time whose date part is taken as written. */
export function parseDateText(text: string): string | null {
  const s = trimText(text);
  if (s === '') return null;
  const p = parse(s);
  if (!p) throw new InvalidCell(`"${s}" is not a date (YYYY-MM-DD).`);
  return p.date;
}

/** CSV date-time: ISO 8601; without an offset, a wall time in the field's zone. */
export function parseInstantText(text: string, timeZone: string): string | null {
  const s = trimText(text);
  if (s === '') return null;
  const p = parse(s);
  if (!p) throw new InvalidCell(`"${s}" is not a date-time (2024-05-01T09:30:00Z, 2024-05-01 09:30 or 2024-05-01).`);
  return new Date(p.offset === undefined ? wallToInstant(timeZone, p.wall) : p.wall - p.offset * 60_000).toISOString();
}

const UTC_ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** CSV / text form of an instant: wall time in the zone, to the second, with its offset (`Z` when 0). */
export function formatInstant(iso: string, timeZone: string): string {
  // Already UTC to the second (what instantOut gives): cut, instead of parsing and printing it again.
  if (timeZone === 'UTC' && UTC_ISO.test(iso)) return `${iso.slice(0, 19)}Z`;
  const instant = Date.parse(iso);
  const offset = zoneOffsetMs(timeZone, instant);
  const wall = new Date(instant + offset).toISOString().slice(0, 19);
  if (offset === 0) return `${wall}Z`;
  const minutes = Math.trunc(Math.abs(offset) / 60_000);
  return `${wall}${offset < 0 ? '-' : '+'}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

// ---- SQL twins ----

/** A valid calendar day in `s` (already matched by the grammar): make_date never sees a bad day. */
function validDaySql(s: string): string {
  return `to_char(make_date(left(${s}, 4)::int, substr(${s}, 6, 2)::int, 1) + (substr(${s}, 9, 2)::int - 1), 'YYYY-MM-DD') = left(${s}, 10)`;
}

/** Text → date (NULL unless the text is a date or date-time), like parseDateText. */
export function dateFromTextSql(expr: string): string {
  const s = sqlTrim(expr);
  return `CASE WHEN ${s} ~ ${sqlString(DATETIME_SOURCE)} AND left(${s}, 4) <> '0000' THEN CASE WHEN ${validDaySql(s)} THEN left(${s}, 10)::date END END`;
}

/** Text → timestamptz, like parseInstantText. */
export function instantFromTextSql(expr: string, timeZone: string): string {
  const s = sqlTrim(expr);
  const instant = `CASE WHEN ${s} ~ '${OFFSET_AT_END}' THEN ${s}::timestamptz ELSE ${s}::timestamp AT TIME ZONE ${sqlString(timeZone)} END`;
  return `CASE WHEN ${s} ~ ${sqlString(DATETIME_SOURCE)} AND left(${s}, 4) <> '0000' THEN CASE WHEN ${validDaySql(s)} THEN date_trunc('milliseconds', ${instant}) END END`;
}

/** timestamptz → text, like formatInstant. */
export function formatInstantSql(col: string, timeZone: string): string {
  // The common case without the offset's arithmetic, done three times below.
  if (timeZone === 'UTC') return `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;
  const zone = sqlString(timeZone);
  const offset = `((${col} AT TIME ZONE ${zone}) - (${col} AT TIME ZONE 'UTC'))`;
  const suffix = `CASE WHEN ${offset} = interval '0' THEN 'Z' WHEN ${offset} > interval '0' THEN '+' || to_char(${offset}, 'HH24:MI') ELSE '-' || to_char(-${offset}, 'HH24:MI') END`;
  return `to_char(${col} AT TIME ZONE ${zone}, 'YYYY-MM-DD"T"HH24:MI:SS') || ${suffix}`;
}

export function formatDateSql(col: string): string {
  return `to_char(${col}, 'YYYY-MM-DD')`;
}

/** date → timestamptz at midnight in `timeZone`. */
export function dateToInstantSql(col: string, timeZone: string): string {
  return `(${col}::timestamp AT TIME ZONE ${sqlString(timeZone)})`;
}

/** timestamptz → its calendar date in `timeZone`. */
export function instantToDateSql(col: string, timeZone: string): string {
  return `(${col} AT TIME ZONE ${sqlString(timeZone)})::date`;
}
