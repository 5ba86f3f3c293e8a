import type { Db } from '../../core/db.ts';
import { invalidField } from '../../core/errors.ts';
import { Type } from '../../core/schema.ts';
import { defineFieldType, InvalidCell, type FieldMeta, type FieldType } from '../databases/field-types/field-type.ts';
import { NUMBER_OPS } from '../databases/field-types/ops.ts';
import type { FieldTypeRegistry } from '../databases/field-types/registry.ts';
import { acrossLinks, linkedOptionProperties, linkedRows, resolveLinked, targetColumn, targetFieldProperty, targetOf, type LinkedOptions } from './linked-fields.ts';

const readOnly = (): never => {
  throw new InvalidCell('A computed field is read-only.');
};
const noCsv = { parse: readOnly, format: (value: unknown) => (Array.isArray(value) ? value.join(', ') : String(value ?? '')) };

/** Types a computed field cannot read across a link: other computed fields. */
function refuseComputedTarget(types: FieldTypeRegistry, target: { type: string }): void {
  const type = types.get(target.type);
  if (!type || (!type.column && !type.systemColumn)) throw invalidField('/options/target_field_id', `A ${target.type} field cannot be read across a link.`);
}

/** `count`: how many live records the link field links to. Sortable and filterable as a number. */
export function createCountType(): FieldType<LinkedOptions> {
  return defineFieldType<LinkedOptions>({
    type: 'count',
    options: Type.Object(linkedOptionProperties, { additionalProperties: false }),
    readOnly: true,
    resolveOptions: (trx, databaseId, options) => resolveLinked(trx, databaseId, options, false).then(({ target: _t, ...o }) => o),
    select: (field, row) => `(SELECT count(*)::int ${linkedRows(field.options, row)})`,
    sortExpr: (col) => col,
    sortType: 'integer',
    emptyValue: 0,
    fromApi: readOnly,
    toApi: (value) => Number(value),
    ops: NUMBER_OPS,
    csv: noCsv,
    convertsTo: {},
  });
}

/** `lookup`: the values of a field of the linked records, oldest link first, empty cells left out. */
export function createLookupType(types: FieldTypeRegistry): FieldType<LinkedOptions> {
  return defineFieldType<LinkedOptions>({
    type: 'lookup',
    options: Type.Object({ ...linkedOptionProperties, ...targetFieldProperty }, { additionalProperties: false }),
    readOnly: true,
    async resolveOptions(trx: Db, databaseId: string, options: LinkedOptions) {
      const { target, ...resolved } = await resolveLinked(trx, databaseId, options, true);
      refuseComputedTarget(types, target!);
      return resolved;
    },
    across: acrossLinks(true),
    select(field, row) {
      const target = targetOf(field);
      const col = target && targetColumn(target);
      if (!col) return `'[]'::json`;
      return `(SELECT coalesce(json_agg(${col} ORDER BY j.created_at, t.id) FILTER (WHERE ${col} IS NOT NULL), '[]'::json) ${linkedRows(field.options, row)})`;
    },
    usersIn(value, field) {
      const target = targetOf(field);
      const people = target && (target.fieldType.refersToUsers || target.fieldType.systemColumn === 'created_by' || target.fieldType.systemColumn === 'updated_by');
      return people ? (value as unknown[]).map(String) : [];
    },
    emptyValue: [],
    fromApi: readOnly,
    toApi(value, field, ctx) {
      const target = targetOf(field);
      return target ? (value as unknown[]).map((v) => target.fieldType.toApi(v, target, ctx)) : [];
    },
    ops: {},
    csv: noCsv,
    convertsTo: {},
  });
}

export const ROLLUP_FUNCTIONS = ['count', 'sum', 'avg', 'min', 'max', 'earliest', 'latest', 'concat', 'unique'] as const;
type RollupFunction = (typeof ROLLUP_FUNCTIONS)[number];
interface RollupOptions extends LinkedOptions {
  function: RollupFunction;
}

const NUMERIC_COLUMNS = new Set(['numeric', 'smallint', 'integer', 'bigint']);
const TIME_COLUMNS = new Set(['date', 'timestamptz']);
/** Which column types each function reads: sums need numbers, earliest/latest times; the rest anything. */
const NEEDS: Partial<Record<RollupFunction, Set<string>>> = {
  sum: NUMERIC_COLUMNS,
  avg: NUMERIC_COLUMNS,
  min: new Set([...NUMERIC_COLUMNS, ...TIME_COLUMNS]),
  max: new Set([...NUMERIC_COLUMNS, ...TIME_COLUMNS]),
  earliest: TIME_COLUMNS,
  latest: TIME_COLUMNS,
};
const SYSTEM_COLUMN_TYPES: Record<string, string> = { number: 'bigint', created_at: 'timestamptz', updated_at: 'timestamptz', created_by: 'uuid', updated_by: 'uuid' };

function columnType(types: FieldTypeRegistry, target: FieldMeta & { type: string }): string | undefined {
  const type = types.get(target.type);
  return type?.column?.(target.options) ?? (type?.systemColumn ? SYSTEM_COLUMN_TYPES[type.systemColumn] : undefined);
}

/**
 * `rollup`: one value from a field of the linked records — `count` (non-empty values), `sum`,
 * `avg`, `min`, `max` (numbers; min/max also dates), `earliest`, `latest` (dates), `concat` (the
 * values as text, comma-separated, oldest link first), `unique` (the distinct values).
 */
export function createRollupType(types: FieldTypeRegistry): FieldType<RollupOptions> {
  const aggregate = (fn: RollupFunction, col: string): string => {
    switch (fn) {
      case 'count': return `count(${col})::int`;
      case 'sum': return `sum(${col})`;
      case 'avg': return `avg(${col})`;
      case 'min': case 'earliest': return `min(${col})`;
      case 'max': case 'latest': return `max(${col})`;
      case 'concat': return `string_agg(${col}::text, ', ' ORDER BY j.created_at, t.id)`;
      case 'unique': return `coalesce(json_agg(DISTINCT ${col}) FILTER (WHERE ${col} IS NOT NULL), '[]'::json)`;
    }
  };
  const numeric = (o: RollupOptions) => o.function === 'count' || o.function === 'sum' || o.function === 'avg';
  return defineFieldType<RollupOptions>({
    type: 'rollup',
    options: Type.Object(
      { ...linkedOptionProperties, ...targetFieldProperty, function: Type.Union(ROLLUP_FUNCTIONS.map((f) => Type.Literal(f))) },
      { additionalProperties: false },
    ),
    readOnly: true,
    async resolveOptions(trx: Db, databaseId: string, options: RollupOptions) {
      const { target, ...resolved } = await resolveLinked(trx, databaseId, options, true);
      refuseComputedTarget(types, target!);
      const needs = NEEDS[options.function];
      const column = columnType(types, target as FieldMeta);
      if (needs && (!column || !needs.has(column))) throw invalidField('/options/function', `"${options.function}" does not apply to a ${target!.type} field.`);
      return resolved;
    },
    select(field, row) {
      const target = targetOf(field);
      const col = target && targetColumn(target);
      // The field read may have been converted since: a sum over what is now text is empty, not an error.
      const needs = NEEDS[field.options.function];
      if (!col || (needs && !needs.has(columnType(types, target) ?? ''))) return 'NULL';
      return `(SELECT ${aggregate(field.options.function, col)} ${linkedRows(field.options, row)})`;
    },
    fromApi: readOnly,
    toApi(value, field, ctx) {
      const o = field.options;
      const target = targetOf(field);
      if (numeric(o)) return Number(value);
      if (o.function === 'concat' || !target) return value;
      if (o.function === 'unique') return (value as unknown[]).map((v) => target.fieldType.toApi(v, target, ctx));
      return target.fieldType.toApi(value, target, ctx);
    },
    ops: {},
    csv: noCsv,
    convertsTo: {},
  });
}
