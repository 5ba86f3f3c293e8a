import type { ErrorDetail } from '../../core/errors.ts';
import { escapePointer, UUID_PATTERN } from '../../core/schema.ts';
import { FILTER_OPS, InvalidCell, type Across, type FieldMeta, type FieldType, type FilterContext, type FilterOp, type FilterOps, type SqlCondition } from '../databases/public.ts';
import type { LiveField } from './live-fields.ts';
import type { RecordTable } from './record-table.ts';

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

/** A field's filter operators: those its options decide (`opsFor`), else its type's. */
export function opsOf(field: FieldMeta & { fieldType: FieldType }): FilterOps {
  return field.fieldType.opsFor?.(field) ?? field.fieldType.ops;
}

/** How conditions on a field reach linked records, when they do (links, lookups, a rollup of `unique` values). */
export function acrossOf(field: LiveField): Across | undefined {
  const across = field.fieldType.across;
  return across && (across.applies?.(field) ?? true) ? across : undefined;
}

/** The records table of another database, for conditions through links (`company.country`). */
export type LinkedTables = (databaseId: string) => RecordTable | undefined;

interface Walk {
  table: RecordTable;
  ctx: FilterContext;
  errors: ErrorDetail[];
  conditions: number;
  linked: LinkedTables;
}

/** Negative ops match records none of whose linked values match the positive one. */
const POSITIVE_OF: Partial<Record<FilterOp, FilterOp>> = { neq: 'eq', not_contains: 'contains', is_none_of: 'is_any_of', has_none_of: 'has_any_of', is_empty: 'is_not_empty' };
const LINK_OPS: readonly FilterOp[] = ['has_any_of', 'has_all_of', 'has_none_of', 'is_empty', 'is_not_empty'];

/**
 * The filter AST (API.md) → one SQL condition. The structure is checked here rather than by a
 * JSON schema so that every mistake is reported once, at its own pointer (`base` + path), and all
 * mistakes of a filter are reported together.
 */
export function compileFilter(table: RecordTable, node: unknown, ctx: FilterContext, base: string, errors: ErrorDetail[], linked: LinkedTables = () => undefined): SqlCondition {
  const walk: Walk = { table, ctx, errors, conditions: 0, linked };
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
  const [name, across] = n.field.split('.', 2) as [string, string | undefined];
  const field = walk.table.byApiName.get(across === undefined ? n.field : name);
  if (!field) return fail(`No field "${n.field}" in this database.`, `${pointer}/field`);
  if (typeof n.op !== 'string' || !(FILTER_OPS as readonly string[]).includes(n.op)) {
    return fail(`Must be one of ${FILTER_OPS.join(', ')}.`, `${pointer}/op`);
  }
  const op = n.op as FilterOp;
  const reach = acrossOf(field);
  if (reach) return compileAcross(walk, field, reach, across, op, n, pointer, fail);
  if (across !== undefined) return fail(`"${name}" is not a link field: only links lead to "${n.field}".`, `${pointer}/field`);
  const ops = opsOf(field);
  const compiler = ops[op];
  if (!compiler) {
    return fail(`A ${field.type} field does not support "${op}"; it supports ${Object.keys(ops).join(', ')}.`, `${pointer}/op`);
  }
  if (!VALUELESS.includes(op) && !('value' in n)) return fail(`"${op}" needs a value.`, `${pointer}/value`);
  try {
    return compiler(columnOf(field, walk.table.table), n.value, field, walk.ctx);
  } catch (err) {
    if (!(err instanceof InvalidCell)) throw err;
    return fail(err.detail, `${pointer}/value`);
  }
}

/**
 * A condition on the records a link reaches: `link.field` paths and lookups test the linked
 * records' field with that field's ops (some linked record matches; a negative op: none matches
 * the positive one); a link itself is tested by record ids or emptiness.
 */
function compileAcross(walk: Walk, field: LiveField, across: Across, path: string | undefined, op: FilterOp, n: Record<string, unknown>, pointer: string, fail: (detail: string, at?: string) => SqlCondition): SqlCondition {
  const row = `"${walk.table.table}"`;
  const exists = (condition: SqlCondition, negate = false): SqlCondition => ({ sql: `${negate ? 'NOT ' : ''}${across.exists(field, row, condition.sql)}`, bindings: condition.bindings });
  const targetId = across.field?.(field);
  if (path === undefined && targetId === undefined) return compileLink(field, op, n, pointer, fail, exists);
  // Linked records the reader cannot see are no records: a condition on their fields holds as on
  // an empty link (a negative one always, a positive one never), and says nothing of those fields.
  if (field.unseen) {
    if (!VALUELESS.includes(op) && !('value' in n)) return fail(`"${op}" needs a value.`, `${pointer}/value`);
    return exists({ sql: 'true', bindings: [] }, POSITIVE_OF[op] !== undefined);
  }
  const linkedTable = walk.linked(across.database(field));
  if (path !== undefined && targetId !== undefined) return fail(`"${field.api_name}" is a ${field.type} field: filter on it, or through its link field.`, `${pointer}/field`);
  const target = path === undefined ? linkedTable?.field(targetId!) : linkedTable?.byApiName.get(path);
  if (!target) return fail(path === undefined ? `The field "${field.api_name}" reads is gone.` : `No field "${path}" in the linked database.`, `${pointer}/field`);
  const column = target.column_name ?? target.fieldType.systemColumn;
  if (!column) return fail(`A ${target.type} field cannot be tested through a link.`, `${pointer}/field`);
  const positive = POSITIVE_OF[op];
  const ops = opsOf(target);
  const compiler = ops[positive ?? op];
  if (!ops[op] || !compiler) {
    return fail(`A ${target.type} field does not support "${op}" through a link; it supports ${Object.keys(ops).join(', ')}.`, `${pointer}/op`);
  }
  if (!VALUELESS.includes(op) && !('value' in n)) return fail(`"${op}" needs a value.`, `${pointer}/value`);
  try {
    return exists(compiler(`t."${column}"`, n.value, target, walk.ctx), positive !== undefined);
  } catch (err) {
    if (!(err instanceof InvalidCell)) throw err;
    return fail(err.detail, `${pointer}/value`);
  }
}

/** A link tested by the records it links: `has_any_of` / `has_all_of` / `has_none_of` record ids, `is_empty`, `is_not_empty`. */
function compileLink(field: LiveField, op: FilterOp, n: Record<string, unknown>, pointer: string, fail: (detail: string, at?: string) => SqlCondition, exists: (c: SqlCondition, negate?: boolean) => SqlCondition): SqlCondition {
  if (!LINK_OPS.includes(op)) return fail(`A link field supports ${LINK_OPS.join(', ')}; to test the linked records' fields use "${field.api_name}.<field>".`, `${pointer}/op`);
  if (op === 'is_empty' || op === 'is_not_empty') return exists({ sql: 'true', bindings: [] }, op === 'is_empty');
  const ids = n.value;
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string' && UUID_PATTERN.test(id))) return fail('Must be a non-empty array of record ids.', `${pointer}/value`);
  if (op === 'has_all_of') {
    const each = ids.map((id) => exists({ sql: 't.id = ?::uuid', bindings: [id] }));
    return { sql: `(${each.map((c) => c.sql).join(' AND ')})`, bindings: each.flatMap((c) => c.bindings) };
  }
  return exists({ sql: 't.id = ANY(?::uuid[])', bindings: [ids] }, op === 'has_none_of');
}
