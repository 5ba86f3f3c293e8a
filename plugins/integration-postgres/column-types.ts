import { LONG_TEXT_MAX, TEXT_MAX } from '../sources/public.ts';

/**
 * How a column's PostgreSQL type becomes a field type of the databases plugin, and how its values are read so that the
 * field's `fromApi` takes every one. Every value is read as text in SQL (the driver parses nothing, so no number goes
 * through a double it does not fit and no timestamp through a JS Date) and turned into the API value here.
 */

export interface ColumnType {
  /** A databases field type. */
  type: string;
  options?: Record<string, unknown>;
  /** SQL that reads `expr` as the text `decode` takes (NULL where the value cannot be a cell of the field). */
  select(expr: string): string;
  /** The API value for the text `select` read (never NULL: NULL is an empty cell). */
  decode(text: string): unknown;
}

/** The databases plugin's other limits: JSON 100,000 characters, numbers below 10^15 (text and long text: `TEXT_MAX`, `LONG_TEXT_MAX`). */
const JSON_MAX = 100_000;
const NUMBER_MAX_DIGITS = 15;
const NUMBER_MAX_PRECISION = 10;

const asText = (expr: string) => `${expr}::text`;

/** Strings longer than the field holds are cut to it (characters, as PostgreSQL's `left` and the field count them). */
const cutText = (type: string, max: number): ColumnType => ({ type, select: (e) => `left(${e}::text, ${max})`, decode: (t) => t });

const text = cutText('text', TEXT_MAX);
const longText = cutText('long_text', LONG_TEXT_MAX);

/** Digits kept as text, whole: an int8 or a numeric a JSON number would round. */
const exactDigits: ColumnType = { type: 'text', select: asText, decode: (t) => (t.length <= TEXT_MAX ? t : null) };

function number(precision: number, select: (expr: string) => string = asText): ColumnType {
  return {
    type: 'number',
    options: { precision },
    select,
    // NaN and ±Infinity (numeric has them) are no JSON number: an empty cell.
    decode: (t) => {
      const n = Number(t);
      return Number.isFinite(n) ? n : null;
    },
  };
}

/**
 * Floats are approximate to begin with: rounded to the number field's finest precision, read through numeric (which
 * keeps a float's significant digits and no binary noise); beyond ±10^15, NaN and ±Infinity, empty.
 */
const float = number(NUMBER_MAX_PRECISION, (e) => `CASE WHEN abs(${e}) < 1e15::float8 THEN round(${e}::numeric, ${NUMBER_MAX_PRECISION})::text END`);

/**
 * numeric(p, s) fits a number field when its values do exactly: at most 15 digits (so below 10^15 and exact in a
 * double) and at most 10 decimals; any other numeric is kept whole as text.
 */
function numeric(typmod: number): ColumnType {
  if (typmod < 0) return exactDigits;
  // typmod = ((precision << 16) | scale) + 4, the scale an 11-bit signed number since PostgreSQL 15.
  const packed = typmod - 4;
  const precision = (packed >> 16) & 0xffff;
  const scale = ((packed & 0x7ff) ^ 1024) - 1024;
  return precision <= NUMBER_MAX_DIGITS && scale >= 0 && scale <= NUMBER_MAX_PRECISION ? number(scale) : exactDigits;
}

/** The date and datetime fields take years 1 to 9999; other dates (BC, ±infinity, year 10000 on) are empty. */
const date: ColumnType = {
  type: 'date',
  select: (e) => `CASE WHEN ${e} BETWEEN '0001-01-01' AND '9999-12-31' THEN to_char(${e}, 'YYYY-MM-DD') END`,
  decode: (t) => t,
};

/** ISO 8601 in UTC with the microseconds PostgreSQL keeps (the field keeps milliseconds); a timestamp without zone is read as UTC. */
function instant(utc: (expr: string) => string): ColumnType {
  return {
    type: 'datetime',
    select: (e) =>
      `CASE WHEN ${utc(e)} >= '0001-01-01' AND ${utc(e)} < '10000-01-01' THEN to_char(${utc(e)}, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') END`,
    decode: (t) => t,
  };
}

/** Whether a parsed JSON value is one the json field stores: finite numbers, no NUL in strings or keys. */
function storable(value: unknown): boolean {
  if (typeof value === 'string') return !value.includes('\u0000');
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(storable);
  if (value !== null && typeof value === 'object') return Object.entries(value).every(([key, item]) => storable(key) && storable(item));
  return true;
}

/**
 * JSON as a value (numbers beyond a double's precision are rounded by JSON.parse). A document longer than the field
 * holds is empty rather than cut (a cut one is no JSON); the SQL side stops one far too long before it is sent.
 */
const json: ColumnType = {
  type: 'json',
  select: (e) => `CASE WHEN length(${e}::text) <= ${JSON_MAX * 2} THEN ${e}::text END`,
  decode: (t) => {
    const value: unknown = JSON.parse(t);
    return value !== null && storable(value) && JSON.stringify(value).length <= JSON_MAX ? value : null;
  },
};

const bool: ColumnType = { type: 'checkbox', select: asText, decode: (t) => t === 'true' };

/**
 * The field type of a column, by its type's name in pg_type and its type modifier (a domain is described by its base
 * type). Types not named here (arrays, enums, intervals, network addresses, …) are long text, in PostgreSQL's text form.
 */
export function columnTypeOf(typname: string, typmod: number): ColumnType {
  switch (typname) {
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'char':
    case 'name':
    case 'citext':
    case 'uuid':
      return text;
    case 'int2':
    case 'int4':
      return number(0);
    case 'int8':
      return exactDigits;
    case 'numeric':
      return numeric(typmod);
    case 'float4':
    case 'float8':
      return float;
    case 'bool':
      return bool;
    case 'date':
      return date;
    case 'timestamptz':
      return instant((e) => `(${e} AT TIME ZONE 'UTC')`);
    case 'timestamp':
      return instant((e) => e);
    case 'json':
    case 'jsonb':
      return json;
    default:
      return longText;
  }
}
