import type { Conversion, FieldMeta } from './field-type.ts';
import { InvalidCell } from '../errors.ts';
import { roundDecimal, toPlainDecimal } from './decimal.ts';
import { sqlTrim, trimText } from './sql.ts';

/**
 * What the numeric types (number, currency, percent, rating, duration) share. A value written through the
 * API is stored exactly or refused: it must be at the field's resolution (its precision; whole stars;
 * milliseconds for a duration, whatever its display format) and fit the field's range. Conversions round
 * half away from zero to that resolution and report what they change. The JS and SQL forms sit together.
 */

/** |value| must stay below this, so that the API's JSON numbers still hold every stored digit. */
const MAX_MAGNITUDE = 1e15;

export const DURATION_FORMATS = ['h:mm', 'h:mm:ss', 'h:mm:ss.s', 'h:mm:ss.ss', 'h:mm:ss.sss'] as const;
export type DurationFormat = (typeof DURATION_FORMATS)[number];

/** Every option a numeric type may have; each type's schema admits its own subset. */
interface NumericOptions {
  precision?: number;
  allow_negative?: boolean;
  max?: number;
  format?: DurationFormat;
}

export const DEFAULT_PRECISION: Record<string, number> = { number: 0, currency: 2, percent: 0 };
export const DEFAULT_RATING_MAX = 5;

/** Decimal places a duration format shows (h:mm shows whole minutes: see `roundValue`). */
export function durationDecimals(format: DurationFormat | undefined): number {
  return Math.max(0, (format ?? 'h:mm').split('.')[1]?.length ?? 0);
}

function optionsOf(field: FieldMeta<any>): NumericOptions {
  return (field.options ?? {}) as NumericOptions;
}

/** A duration keeps milliseconds whatever its format: the format only says how it is written. */
const DURATION_PLACES = 3;

/** Decimal places a field stores; a percent is stored as a fraction, so two more than it shows. */
export function placesOf(field: FieldMeta<any>): number {
  const o = optionsOf(field);
  switch (field.type) {
    case 'percent': return (o.precision ?? DEFAULT_PRECISION.percent) + 2;
    case 'rating': return 0;
    case 'duration': return DURATION_PLACES;
    default: return o.precision ?? DEFAULT_PRECISION[field.type] ?? 0;
  }
}

/** The limit a value finer than the field's resolution breaks, as a 422 says it. */
function resolutionLimit(field: FieldMeta<any>): string {
  const o = optionsOf(field);
  switch (field.type) {
    case 'percent': return `Must have at most ${placesOf(field)} decimal places: a percent is a fraction (0.5 is 50 %), and this field's precision is ${o.precision ?? DEFAULT_PRECISION.percent}.`;
    case 'rating': return `Must be a whole number from 0 to ${o.max ?? DEFAULT_RATING_MAX}.`;
    case 'duration': return 'Must be a number of seconds with at most 3 decimal places (milliseconds).';
    default: return `Must have at most ${placesOf(field)} decimal places (the field's precision).`;
  }
}

const wholeMinutes = (field: FieldMeta<any>) => field.type === 'duration' && (optionsOf(field).format ?? 'h:mm') === 'h:mm';

/** Rounds a plain decimal as the field shows it (a duration to its format's unit); never applied to what is stored. */
export function roundValue(plain: string, field: FieldMeta<any>): string {
  if (wholeMinutes(field)) return (BigInt(roundDecimal(toPlainDecimal(Number(plain) / 60), 0)) * 60n).toString();
  return roundDecimal(plain, field.type === 'duration' ? durationDecimals(optionsOf(field).format) : placesOf(field));
}

/** Why a rounded value does not fit the field, or undefined when it does. */
export function misfit(rounded: string, field: FieldMeta<any>): string | undefined {
  const v = Number(rounded);
  if (field.type === 'rating') {
    const max = optionsOf(field).max ?? DEFAULT_RATING_MAX;
    return v >= 0 && v <= max ? undefined : `Must be a whole number from 0 to ${max}.`;
  }
  if (Math.abs(v) >= MAX_MAGNITUDE) return 'Must be between -10^15 and 10^15.';
  if (v < 0 && optionsOf(field).allow_negative === false) return 'Must not be negative.';
  return undefined;
}

/**
 * A finite number → the stored value (a decimal string; a number for rating), or null for a
 * rating of 0 (no stars). Throws InvalidCell when it is finer than the field's resolution or does not fit:
 * a write never rounds.
 */
export function numericIn(x: number, field: FieldMeta<any>): string | number | null {
  const rounded = roundDecimal(toPlainDecimal(x), placesOf(field));
  if (Number(rounded) !== x) throw new InvalidCell(resolutionLimit(field));
  const why = misfit(rounded, field);
  if (why) throw new InvalidCell(why);
  if (field.type === 'rating') return Number(rounded) === 0 ? null : Number(rounded);
  return rounded;
}

export function requireNumber(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new InvalidCell('Must be a number.');
  return value;
}

/** SQL twin of `numericIn`: `expr` (numeric) rounded to the field's resolution, NULL where numericIn refuses (and for 0 stars). */
export function fitNumericSql(expr: string, field: FieldMeta<any>): string {
  const r = `round(${expr}, ${placesOf(field)})`;
  if (field.type === 'rating') {
    return `CASE WHEN ${r} BETWEEN 1 AND ${optionsOf(field).max ?? DEFAULT_RATING_MAX} THEN ${r}::smallint END`;
  }
  const checks = [`abs(${r}) < ${MAX_MAGNITUDE.toFixed(0)}`];
  if (optionsOf(field).allow_negative === false) checks.push(`${r} >= 0`);
  return `CASE WHEN ${checks.join(' AND ')} THEN ${r} END`;
}

/** A stored value the field's options no longer allow: finer than its resolution, out of its range. */
export function numericMisfitSql(col: string, field: FieldMeta<any>): string {
  return `(${col} IS NOT NULL AND (${fitNumericSql(col, field)}) IS DISTINCT FROM ${col})`;
}

/**
 * Conversions between the numeric types, and of a type to itself with new options (a lower
 * precision): the API value is kept, then rounded and range-checked.
 */
export function numericConversions(): Record<string, Conversion> {
  const out: Record<string, Conversion> = {};
  for (const type of ['number', 'currency', 'percent', 'rating', 'duration']) out[type] = { sql: (col, _from, to) => fitNumericSql(col, to) };
  return out;
}

// ---- numbers in text ----

const PLAIN = '^[+-]{0,1}([0-9]+(\\.[0-9]*){0,1}|\\.[0-9]+)$';
const GROUPED = '^[+-]{0,1}[0-9]{1,3}(,[0-9]{3})+(\\.[0-9]*){0,1}$';
const PLAIN_RE = new RegExp(PLAIN);
const GROUPED_RE = new RegExp(GROUPED);

/**
 * A number written as text: "12", "-3.5", ".5", "+2", or with thousands separators "1,234.5".
 * No exponents and no decimal commas ("1,5" is refused, not read as 15). Returns a plain decimal.
 */
export function parseNumberText(text: string): string | null {
  if (PLAIN_RE.test(text)) return text;
  if (GROUPED_RE.test(text)) return text.replace(/,/g, '');
  return null;
}

/** SQL twin of `parseNumberText` on an already trimmed text expression: numeric or NULL. */
export function numberTextSql(s: string): string {
  return `CASE WHEN ${s} ~ '${PLAIN}' THEN ${s}::numeric WHEN ${s} ~ '${GROUPED}' THEN replace(${s}, ',', '')::numeric END`;
}

/** The CSV parse of a plain numeric type: trimmed text → number, '' → null. */
export function parseNumericCell(text: string): number | null {
  const s = trimText(text);
  if (s === '') return null;
  const plain = parseNumberText(s);
  if (plain === null) throw new InvalidCell(`"${s}" is not a number.`);
  return Number(plain);
}

/** SQL twin of parseNumericCell + fromApi. */
export function numericCellSql(expr: string, field: FieldMeta<any>): string {
  return fitNumericSql(numberTextSql(sqlTrim(expr)), field);
}

/** The field's value as it shows it, as text: "3.50" for a 2-decimal number. */
/**
 * SQL twin of formatFixed, exact: the value goes through a double as `Number` takes it (PostgreSQL prints a float8 as
 * the shortest text that reads back the same, as JS does) before rounding half away from zero.
 */
export function fixedTextSql(col: string, field: FieldMeta<any>): string {
  return `round(${col}::float8::text::numeric, ${placesOf(field)})::text`;
}

export function formatFixed(value: unknown, field: FieldMeta<any>): string {
  return roundValue(toPlainDecimal(Number(value)), field);
}
