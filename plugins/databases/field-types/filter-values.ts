import { type SqlCondition } from './field-type.ts';
import { InvalidCell } from '../errors.ts';

/** At most this many values in `is_any_of` and friends: each becomes one bound parameter. */
export const MAX_FILTER_VALUES = 100;

export function cond(sql: string, ...bindings: unknown[]): SqlCondition {
  return { sql, bindings };
}

/** Negative ops (neq, not_contains, is_none_of, has_none_of) also match empty cells (API.md). */
export function orEmpty(col: string, c: SqlCondition): SqlCondition {
  return { sql: `(${col} IS NULL OR ${c.sql})`, bindings: c.bindings };
}

export function filterString(value: unknown): string {
  if (typeof value !== 'string' || value === '') throw new InvalidCell('Must be a non-empty string.');
  return value;
}

export function filterNumber(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new InvalidCell('Must be a number.');
  return value;
}

export function filterList<T>(value: unknown, each: (item: unknown) => T): T[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_FILTER_VALUES) {
    throw new InvalidCell(`Must be an array of 1 to ${MAX_FILTER_VALUES} values.`);
  }
  return value.map(each);
}

/** `expr IN (?, ?, …)` with one placeholder per value, each wrapped by `placeholder` (e.g. `lower(?)`). */
export function inList(expr: string, values: unknown[], placeholder = '?'): SqlCondition {
  return { sql: `${expr} IN (${values.map(() => placeholder).join(', ')})`, bindings: values };
}

