import { UUID_PATTERN } from '../../../core/schema.ts';
import { type FieldMeta, type FilterCompiler, type FilterOps, type SqlCondition } from './field-type.ts';
import { InvalidCell } from '../errors.ts';
import { resolveChoice } from './choices.ts';
import { escapeLike } from '../../../core/like-pattern.ts';
import { cond, filterList, filterNumber, filterString, inList, orEmpty } from './filter-values.ts';
import { addDays, resolveDay, resolveRange } from './relative-dates.ts';
import { instantIn, timeZoneOf, wallToInstant, type DateTimeOptions } from './time.ts';

/**
 * The filter operators of each family of types (API.md "Filter AST") and the SQL of each.
 * Text ops ignore case; negative ops match empty cells; comparisons never do.
 */

const isNull: FilterCompiler = (col) => cond(`${col} IS NULL`);
const isNotNull: FilterCompiler = (col) => cond(`${col} IS NOT NULL`);

const like = (pattern: (text: string) => string): FilterCompiler => (col, value) => cond(`${col} ILIKE ?`, pattern(escapeLike(filterString(value))));
const lowerIn = (col: string, value: unknown): SqlCondition => inList(`lower(${col})`, filterList(value, filterString), 'lower(?::text)');

export const TEXT_OPS: FilterOps = {
  eq: (col, value) => cond(`lower(${col}) = lower(?::text)`, filterString(value)),
  neq: (col, value) => orEmpty(col, cond(`lower(${col}) <> lower(?::text)`, filterString(value))),
  contains: like((t) => `%${t}%`),
  not_contains: (col, value, field, ctx) => orEmpty(col, negate(like((t) => `%${t}%`)(col, value, field, ctx))),
  starts_with: like((t) => `${t}%`),
  ends_with: like((t) => `%${t}`),
  is_empty: isNull,
  is_not_empty: isNotNull,
  is_any_of: (col, value) => lowerIn(col, value),
  is_none_of: (col, value) => orEmpty(col, negate(lowerIn(col, value))),
};

const compare = (operator: string, parse: (value: unknown) => unknown, cast: string): FilterCompiler => (col, value) =>
  cond(`${col} ${operator} ?::${cast}`, parse(value));

export const NUMBER_OPS: FilterOps = {
  eq: compare('=', filterNumber, 'numeric'),
  neq: (col, value) => orEmpty(col, cond(`${col} <> ?::numeric`, filterNumber(value))),
  gt: compare('>', filterNumber, 'numeric'),
  gte: compare('>=', filterNumber, 'numeric'),
  lt: compare('<', filterNumber, 'numeric'),
  lte: compare('<=', filterNumber, 'numeric'),
  is_empty: isNull,
  is_not_empty: isNotNull,
  is_any_of: (col, value) => inList(col, filterList(value, filterNumber), '?::numeric'),
  is_none_of: (col, value) => orEmpty(col, negate(inList(col, filterList(value, filterNumber), '?::numeric'))),
};

/**
 * Columns of whole numbers (`smallint`, `bigint`): a whole value is compared as `int8`, which PostgreSQL compares with
 * the column as it is (and with a btree on it); `?::numeric` would convert the column on every row and keep its
 * indexes out of the plan. A value with a fraction is still compared exactly, as numeric.
 */
const integerCast = (value: number) => (Number.isSafeInteger(value) ? 'int8' : 'numeric');
const compareInteger = (operator: string): FilterCompiler => (col, value) => {
  const n = filterNumber(value);
  return cond(`${col} ${operator} ?::${integerCast(n)}`, n);
};
const integerIn = (col: string, value: unknown): SqlCondition => {
  const list = filterList(value, filterNumber);
  return inList(col, list, `?::${list.every(Number.isSafeInteger) ? 'int8' : 'numeric'}`);
};

export const INTEGER_OPS: FilterOps = {
  ...NUMBER_OPS,
  eq: compareInteger('='),
  neq: (col, value, field, ctx) => orEmpty(col, compareInteger('<>')(col, value, field, ctx)),
  gt: compareInteger('>'),
  gte: compareInteger('>='),
  lt: compareInteger('<'),
  lte: compareInteger('<='),
  is_any_of: integerIn,
  is_none_of: (col, value) => orEmpty(col, negate(integerIn(col, value))),
};

function filterBoolean(value: unknown): boolean {
  if (typeof value !== 'boolean') throw new InvalidCell('Must be true or false.');
  return value;
}

/** A checkbox is never empty: unchecked is `false`. */
export const CHECKBOX_OPS: FilterOps = {
  eq: (col, value) => cond(`coalesce(${col}, false) = ?::boolean`, filterBoolean(value)),
  neq: (col, value) => cond(`coalesce(${col}, false) <> ?::boolean`, filterBoolean(value)),
};

/** `date` columns: days compare as days. */
export const DATE_OPS: FilterOps = {
  eq: (col, value, _f, ctx) => cond(`${col} = ?::date`, resolveDay(value, ctx.now)),
  neq: (col, value, _f, ctx) => orEmpty(col, cond(`${col} <> ?::date`, resolveDay(value, ctx.now))),
  before: (col, value, _f, ctx) => cond(`${col} < ?::date`, resolveDay(value, ctx.now)),
  after: (col, value, _f, ctx) => cond(`${col} > ?::date`, resolveDay(value, ctx.now)),
  on_or_before: (col, value, _f, ctx) => cond(`${col} <= ?::date`, resolveDay(value, ctx.now)),
  on_or_after: (col, value, _f, ctx) => cond(`${col} >= ?::date`, resolveDay(value, ctx.now)),
  within: (col, value, _f, ctx) => {
    const range = resolveRange(value, ctx.now);
    return cond(`${col} BETWEEN ?::date AND ?::date`, range.from, range.to);
  },
  is_empty: isNull,
  is_not_empty: isNotNull,
};

/** The zone a day is taken in on a timestamptz column: the value's `tz`, else the field's zone. */
function zoneOf(value: unknown, field: FieldMeta<any>): string {
  const tz = typeof value === 'object' && value !== null ? (value as { tz?: unknown }).tz : undefined;
  return typeof tz === 'string' ? tz : timeZoneOf(field.options as DateTimeOptions);
}

/** The instant a day starts in a zone, as ISO 8601. */
function dayStart(day: string, timeZone: string): string {
  const wall = Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)));
  return new Date(wallToInstant(timeZone, wall)).toISOString();
}

const isInstant = (value: unknown): value is string => typeof value === 'string' && value.includes('T');

/**
 * `timestamptz` columns: an ISO date-time compares as that instant; a day (or relative day) as
 * the span of that day, from its start to the next day's start, in the value's `tz` or the field's zone.
 */
const instantOp = (operator: string, onDay: (col: string, start: string, end: string) => SqlCondition): FilterCompiler => (col, value, field, ctx) => {
  if (isInstant(value)) return cond(`${col} ${operator} ?::timestamptz`, instantIn(value, timeZoneOf(field.options as DateTimeOptions)));
  const day = resolveDay(value, ctx.now);
  const zone = zoneOf(value, field);
  return onDay(col, dayStart(day, zone), dayStart(addDays(day, 1), zone));
};

const from = (col: string, start: string) => cond(`${col} >= ?::timestamptz`, start);
const until = (col: string, end: string) => cond(`${col} < ?::timestamptz`, end);
const span = (col: string, start: string, end: string) => cond(`(${col} >= ?::timestamptz AND ${col} < ?::timestamptz)`, start, end);

export const DATETIME_OPS: FilterOps = {
  eq: instantOp('=', span),
  neq: (col, value, field, ctx) => orEmpty(col, instantOp('<>', (c, s, e) => negate(span(c, s, e)))(col, value, field, ctx)),
  before: instantOp('<', (c, s) => until(c, s)),
  after: instantOp('>', (c, _s, e) => from(c, e)),
  on_or_before: instantOp('<=', (c, _s, e) => until(c, e)),
  on_or_after: instantOp('>=', (c, s) => from(c, s)),
  within: (col, value, field, ctx) => {
    const range = resolveRange(value, ctx.now);
    const zone = zoneOf(value, field);
    return span(col, dayStart(range.from, zone), dayStart(addDays(range.to, 1), zone));
  },
  is_empty: isNull,
  is_not_empty: isNotNull,
};

const choiceIds = (value: unknown, field: FieldMeta<any>) => filterList(value, (v) => resolveChoice(v, field));

export const SELECT_OPS: FilterOps = {
  eq: (col, value, field) => cond(`${col} = ?::uuid`, resolveChoice(value, field)),
  neq: (col, value, field) => orEmpty(col, cond(`${col} <> ?::uuid`, resolveChoice(value, field))),
  is_any_of: (col, value, field) => inList(col, choiceIds(value, field), '?::uuid'),
  is_none_of: (col, value, field) => orEmpty(col, negate(inList(col, choiceIds(value, field), '?::uuid'))),
  is_empty: isNull,
  is_not_empty: isNotNull,
};

const uuidArray = (ids: string[]) => `ARRAY[${ids.map(() => '?::uuid').join(', ')}]`;

/** Multi-select cells hold option ids; an empty cell is NULL (never an empty array once written through the API). */
export const MULTI_SELECT_OPS: FilterOps = {
  has_any_of: (col, value, field) => {
    const ids = choiceIds(value, field);
    return { sql: `${col} && ${uuidArray(ids)}`, bindings: ids };
  },
  has_all_of: (col, value, field) => {
    const ids = choiceIds(value, field);
    return { sql: `${col} @> ${uuidArray(ids)}`, bindings: ids };
  },
  has_none_of: (col, value, field) => {
    const ids = choiceIds(value, field);
    return orEmpty(col, { sql: `NOT (${col} && ${uuidArray(ids)})`, bindings: ids });
  },
  eq: (col, value, field) => {
    const ids = choiceIds(value, field);
    return { sql: `(${col} @> ${uuidArray(ids)} AND ${col} <@ ${uuidArray(ids)})`, bindings: [...ids, ...ids] };
  },
  is_empty: (col) => cond(`(${col} IS NULL OR cardinality(${col}) = 0)`),
  is_not_empty: (col) => cond(`cardinality(${col}) > 0`),
};

/** A user id, or `"me"`: whoever runs the query (a view filtered on "me" shows each person their own). */
function personOf(value: unknown, userId: string): string {
  if (value === 'me') return userId;
  if (typeof value !== 'string' || !UUID_PATTERN.test(value)) throw new InvalidCell('Must be a user id or "me".');
  return value.toLowerCase();
}

export const PERSON_OPS: FilterOps = {
  eq: (col, value, _f, ctx) => cond(`${col} = ?::uuid`, personOf(value, ctx.userId)),
  neq: (col, value, _f, ctx) => orEmpty(col, cond(`${col} <> ?::uuid`, personOf(value, ctx.userId))),
  is_any_of: (col, value, _f, ctx) => inList(col, filterList(value, (v) => personOf(v, ctx.userId)), '?::uuid'),
  is_none_of: (col, value, _f, ctx) => orEmpty(col, negate(inList(col, filterList(value, (v) => personOf(v, ctx.userId)), '?::uuid'))),
  is_empty: isNull,
  is_not_empty: isNotNull,
};

/** Only whether a cell is empty: json cells, and computed values that read nothing any more. */
export const PRESENCE_OPS: FilterOps = { is_empty: isNull, is_not_empty: isNotNull };

function negate(c: SqlCondition): SqlCondition {
  return { sql: `NOT (${c.sql})`, bindings: c.bindings };
}
