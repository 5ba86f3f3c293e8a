import { InvalidCell } from '../errors.ts';
import { dateIn } from './time.ts';

/**
 * Date filter values: a calendar day (`"2024-05-01"` or `{ "relative": "today", "tz"? }`) for
 * eq/before/after/…, and a range of days for `within`. Relative days are resolved once per query
 * in the zone given (`tz`, else UTC), so "today" means the caller's today, not the server's.
 */
export const RELATIVE_DAYS = ['today', 'tomorrow', 'yesterday', 'one_week_ago', 'one_week_from_now', 'one_month_ago', 'one_month_from_now', 'number_of_days_ago', 'number_of_days_from_now'] as const;
export const RELATIVE_RANGES = ['past_week', 'past_month', 'past_year', 'next_week', 'next_month', 'next_year', 'past_number_of_days', 'next_number_of_days'] as const;

/** An inclusive range of days, `YYYY-MM-DD`. */
export interface DayRange {
  from: string;
  to: string;
}

const DAY_MS = 86_400_000;

/** The calendar day `now` falls on in `timeZone`. */
function todayIn(timeZone: string, now: Date): string {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now);
  } catch {
    throw new InvalidCell(`"${timeZone}" is not an IANA time zone (e.g. "Europe/Paris").`);
  }
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}

function toMs(day: string): number {
  return Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)));
}

function fromMs(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function addDays(day: string, days: number): string {
  return fromMs(toMs(day) + days * DAY_MS);
}

/** Calendar months, clamped to the month's last day (Jan 31 + 1 month = Feb 28/29), as PostgreSQL does. */
function addMonths(day: string, months: number): string {
  const d = new Date(toMs(day));
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
  const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), last));
  return fromMs(target.getTime());
}

interface Relative {
  relative: string;
  tz?: unknown;
  days?: unknown;
}

function relativeOf(value: unknown): Relative | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (!keys.includes('relative') || keys.some((k) => !['relative', 'tz', 'days'].includes(k))) return undefined;
  const r = value as Relative;
  if (typeof r.relative !== 'string' || (r.tz !== undefined && typeof r.tz !== 'string')) return undefined;
  return r;
}

function daysOf(r: Relative): number {
  if (!Number.isInteger(r.days) || (r.days as number) < 0 || (r.days as number) > 36_600) {
    throw new InvalidCell(`"${r.relative}" needs "days": a whole number from 0 to 36600.`);
  }
  return r.days as number;
}

const DAY_HELP = `Must be a date ("YYYY-MM-DD") or { "relative": ${RELATIVE_DAYS.map((r) => `"${r}"`).join(' | ')}, "tz"?, "days"? }.`;

/** A day value → `YYYY-MM-DD`. */
export function resolveDay(value: unknown, now: Date): string {
  if (typeof value === 'string') {
    try {
      return dateIn(value);
    } catch {
      throw new InvalidCell(DAY_HELP);
    }
  }
  const r = relativeOf(value);
  if (!r || !(RELATIVE_DAYS as readonly string[]).includes(r.relative)) throw new InvalidCell(DAY_HELP);
  const today = todayIn((r.tz as string | undefined) ?? 'UTC', now);
  switch (r.relative) {
    case 'today': return today;
    case 'tomorrow': return addDays(today, 1);
    case 'yesterday': return addDays(today, -1);
    case 'one_week_ago': return addDays(today, -7);
    case 'one_week_from_now': return addDays(today, 7);
    case 'one_month_ago': return addMonths(today, -1);
    case 'one_month_from_now': return addMonths(today, 1);
    case 'number_of_days_ago': return addDays(today, -daysOf(r));
    default: return addDays(today, daysOf(r));
  }
}

const RANGE_HELP = `Must be { "from": "YYYY-MM-DD", "to": "YYYY-MM-DD" } or { "relative": ${RELATIVE_RANGES.map((r) => `"${r}"`).join(' | ')}, "tz"?, "days"? }.`;

/** A `within` value → an inclusive range of days (past ranges end today, next ranges start today). */
export function resolveRange(value: unknown, now: Date): DayRange {
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && 'from' in value) {
    const { from, to, ...rest } = value as { from: unknown; to?: unknown };
    if (Object.keys(rest).length > 0 || typeof from !== 'string' || typeof to !== 'string') throw new InvalidCell(RANGE_HELP);
    const range = { from: resolveDay(from, now), to: resolveDay(to, now) };
    if (range.from > range.to) throw new InvalidCell('"from" must not be after "to".');
    return range;
  }
  const r = relativeOf(value);
  if (!r || !(RELATIVE_RANGES as readonly string[]).includes(r.relative)) throw new InvalidCell(RANGE_HELP);
  const today = todayIn((r.tz as string | undefined) ?? 'UTC', now);
  switch (r.relative) {
    case 'past_week': return { from: addDays(today, -7), to: today };
    case 'past_month': return { from: addMonths(today, -1), to: today };
    case 'past_year': return { from: addMonths(today, -12), to: today };
    case 'next_week': return { from: today, to: addDays(today, 7) };
    case 'next_month': return { from: today, to: addMonths(today, 1) };
    case 'next_year': return { from: today, to: addMonths(today, 12) };
    case 'past_number_of_days': return { from: addDays(today, -daysOf(r)), to: today };
    default: return { from: today, to: addDays(today, daysOf(r)) };
  }
}
