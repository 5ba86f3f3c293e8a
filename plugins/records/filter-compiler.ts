import type { ErrorDetail } from '../../core/errors.ts';
import { escapePointer } from '../../core/schema.ts';
import { FILTER_OPS, InvalidCell, type FilterContext, type FilterOp, type SqlCondition } from '../databases/field-types/field-type.ts';
import type { LiveField, RecordTable } from './record-table.ts';

/** Nesting and size bounds of one filter: enough for any view a person builds, small enough to plan fast. */
export const MAX_FILTER_DEPTH = 8;
export const MAX_FILTER_CONDITIONS = 200;

const VALUELESS: readonly FilterOp[] = ['is_empty', 'is_not_empty'];

/**
 * The SQL of a field's value in a row of `table` (unaliased, as filters and sort keys use it):
 * its quoted column, the system column a system type reads, or a computed type's expression.
 */
export function columnOf(field: LiveField, table: string): string {
  const column = field.column_name ?? field.fieldType.systemColumn;
  return column ? `"${column}"` : field.fieldType.select!(field, `"${table}"`);
}

interface Walk {
  table: RecordTable;
  ctx: FilterContext;
  errors: ErrorDetail[];
  conditions: number;
}

/**
 * The filter AST (API.md) → one SQL condition. The structure is checked here rather than by a
 * JSON schema so that every mistake is reported once, at its own pointer (`base` + path), and all
 * mistakes of a filter are reported together.
 */
export function compileFilter(table: RecordTable, node: unknown, ctx: FilterContext, base: string, errors: ErrorDetail[]): SqlCondition {
  const walk: Walk = { table, ctx, errors, conditions: 0 };
  const out = compileNode(walk, node, base, 1);
  if (walk.conditions > MAX_FILTER_CONDITIONS) errors.push({ pointer: base, detail: `A filter may hold at most ${MAX_FILTER_CONDITIONS} conditions.` });
  return out;
}

const NOTHING: SqlCondition = { sql: 'true', bindings: [] };

function compileNode(walk: Walk, node: unknown, pointer: string, depth: number): SqlCondition {
  const fail = (detail: string, at = pointer): SqlCondition => {
    walk.errors.push({ pointer: at, detail });
    return NOTHING;
  };
  if (typeof node !== 'object' || node === null || Array.isArray(node)) {
    return fail('Must be { "and": [...] }, { "or": [...] }, { "not": {...} } or { "field", "op", "value"? }.');
  }
  if (depth > MAX_FILTER_DEPTH) return fail(`Filters nest at most ${MAX_FILTER_DEPTH} levels deep.`);
  const keys = Object.keys(node);
  const n = node as Record<string, unknown>;
  if ('and' in n || 'or' in n) {
    const joiner = 'and' in n ? 'and' : 'or';
    if (keys.length !== 1) return fail(`A group has only "${joiner}".`);
    const children = n[joiner];
    if (!Array.isArray(children)) return fail('Must be an array of filters.', `${pointer}/${joiner}`);
    if (children.length === 0) return { sql: joiner === 'and' ? 'true' : 'false', bindings: [] };
    const parts = children.map((child, i) => compileNode(walk, child, `${pointer}/${joiner}/${i}`, depth + 1));
    return { sql: `(${parts.map((p) => p.sql).join(joiner === 'and' ? ' AND ' : ' OR ')})`, bindings: parts.flatMap((p) => p.bindings) };
  }
  if ('not' in n) {
    if (keys.length !== 1) return fail('A negation has only "not".');
    const inner = compileNode(walk, n.not, `${pointer}/not`, depth + 1);
    // NOT of a NULL comparison is NULL: coalesce so that "not (x > 3)" keeps records where x is empty.
    return { sql: `NOT coalesce(${inner.sql}, false)`, bindings: inner.bindings };
  }
  return compileCondition(walk, n, pointer, fail);
}

function compileCondition(walk: Walk, n: Record<string, unknown>, pointer: string, fail: (detail: string, at?: string) => SqlCondition): SqlCondition {
  walk.conditions += 1;
  const unknown = Object.keys(n).filter((k) => k !== 'field' && k !== 'op' && k !== 'value');
  if (unknown.length > 0) return fail(`Unknown property "${unknown[0]}".`, `${pointer}/${escapePointer(unknown[0])}`);
  if (typeof n.field !== 'string') return fail('Must be the api_name of a field.', `${pointer}/field`);
  const field = walk.table.byApiName.get(n.field);
  if (!field) return fail(`No field "${n.field}" in this database.`, `${pointer}/field`);
  if (typeof n.op !== 'string' || !(FILTER_OPS as readonly string[]).includes(n.op)) {
    return fail(`Must be one of ${FILTER_OPS.join(', ')}.`, `${pointer}/op`);
  }
  const op = n.op as FilterOp;
  const compiler = field.fieldType.ops[op];
  if (!compiler) {
    return fail(`A ${field.type} field does not support "${op}"; it supports ${Object.keys(field.fieldType.ops).join(', ')}.`, `${pointer}/op`);
  }
  if (!VALUELESS.includes(op) && !('value' in n)) return fail(`"${op}" needs a value.`, `${pointer}/value`);
  try {
    return compiler(columnOf(field, walk.table.table), n.value, field, walk.ctx);
  } catch (err) {
    if (!(err instanceof InvalidCell)) throw err;
    return fail(err.detail, `${pointer}/value`);
  }
}
