import type { Db } from '../../core/db.ts';
import { invalidField } from '../../core/errors.ts';
import { Type } from '../../core/schema.ts';
import { defineFieldType, InvalidCell, NUMBER_OPS, PRESENCE_OPS, TEXT_OPS, textFormSql, type CellAggregate, type FieldMeta, type FieldSortKey, type FieldType, type FieldTypeRegistry, type FilterCompiler, type FilterOps, type OptionsWriter } from '../databases/public.ts';
import { columnSortKey, opsOf, valueTypeOf, type TargetField } from '../records/public.ts';
import { acrossLinks, cellOf, linkedOptionProperties, linkedRows, oneLinkedKey, overLinked, reachesLinked, reachesOne, resolveLinked, sortAliasOf, targetColumn, targetFieldProperty, targetOf, type LinkedOptions } from './linked-fields.ts';

const readOnly = (): never => {
  throw new InvalidCell('A computed field is read-only.');
};
const noCsv = { parse: readOnly, format: (value: unknown) => (Array.isArray(value) ? value.join(', ') : String(value ?? '')) };

/** The key of a computed field that reads nothing any more (its field deleted or converted): empty, so last. */
const NO_KEY: FieldSortKey = { expr: 'NULL::text', type: 'text' };

/**
 * The key of `target`'s first value among the records linked to `row` in `order` (an SQL order
 * on the linked rows; `1`: the key itself), empty cells left out as the cells leave them out.
 */
function firstValueKey(field: FieldMeta<LinkedOptions>, row: string, target: TargetField, col: string, order: string): FieldSortKey {
  const key = columnSortKey(target, col);
  // Through a link that reaches one record, that record's value is the first: joined, not looked up per record.
  if (reachesOne(field.options)) return oneLinkedKey(field, row, key, sortAliasOf(field));
  return { expr: `(SELECT ${key.expr} ${linkedRows(field, row)} AND ${col} IS NOT NULL ORDER BY ${order} LIMIT 1)`, type: key.type };
}

/** The people a list of the read field's values names (a lookup, a rollup's distinct values), so that their names are loaded. */
function peopleIn(value: unknown, field: FieldMeta<any>): string[] {
  const target = targetOf(field);
  const people = target && (target.fieldType.refersToUsers || target.fieldType.systemColumn === 'created_by' || target.fieldType.systemColumn === 'updated_by');
  return people ? (value as unknown[]).map(String) : [];
}

/** Types a computed field cannot read across a link: other computed fields. */
function refuseComputedTarget(types: FieldTypeRegistry, target: { type: string }): void {
  const type = types.get(target.type);
  if (!type || (!type.column && !type.systemColumn)) throw invalidField('/options/target_field_id', `A ${target.type} field cannot be read across a link.`);
}

/** What a reader who cannot see the linked database is shown of a computed field's options: its own link field, and the kind of link. */
const SHOWN_UNSEEN: Array<keyof LinkedOptions> = ['link_field_id', 'side', 'kind'];

const countOf = (field: FieldMeta<LinkedOptions>) => overLinked(field, 'count(*)::int');

/** `count`: how many live records the link field links to. Sortable and filterable as a number. */
export function createCountType(): FieldType<LinkedOptions> {
  return defineFieldType<LinkedOptions>({
    type: 'count',
    cell: { schema: { type: 'integer', minimum: 0 }, example: 3, writes: 'Read-only.' },
    options: Type.Object(linkedOptionProperties, { additionalProperties: false }),
    optionsExample: { link_field_id: 'deals' },
    readOnly: true,
    resolveOptions: (trx, databaseId, options, writer) => resolveLinked(trx, databaseId, options, writer, false).then(({ target: _t, ...o }) => o),
    reaches: reachesLinked<LinkedOptions>(SHOWN_UNSEEN),
    select: (field, row) => cellOf(countOf(field), row),
    aggregate: countOf,
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

/** The read field's values over the linked records, oldest link first, empty cells left out; none when it reads nothing any more. */
function lookupOf(field: FieldMeta<LinkedOptions>): CellAggregate | undefined {
  const target = targetOf(field);
  const col = target && targetColumn(target);
  return col ? overLinked(field, `coalesce(json_agg(${col} ORDER BY j.created_at, t.id) FILTER (WHERE ${col} IS NOT NULL), '[]'::json)`) : undefined;
}

/** `lookup`: the values of a field of the linked records, oldest link first, empty cells left out. */
export function createLookupType(types: FieldTypeRegistry): FieldType<LinkedOptions> {
  return defineFieldType<LinkedOptions>({
    type: 'lookup',
    cell: { schema: { type: 'array', description: "The linked records' values of the field read, as that field shows them." }, example: [1200, 300], writes: 'Read-only.' },
    options: Type.Object({ ...linkedOptionProperties, ...targetFieldProperty }, { additionalProperties: false }),
    optionsExample: { link_field_id: 'deals', target_field_id: 'amount' },
    readOnly: true,
    async resolveOptions(trx: Db, databaseId: string, options: LinkedOptions, writer: OptionsWriter) {
      const { target, ...resolved } = await resolveLinked(trx, databaseId, options, writer, true);
      refuseComputedTarget(types, target!);
      return resolved;
    },
    across: acrossLinks(true),
    reaches: reachesLinked<LinkedOptions>(SHOWN_UNSEEN),
    select(field, row) {
      const values = lookupOf(field);
      return values ? cellOf(values, row) : `'[]'::json`;
    },
    aggregate: lookupOf,
    /** By its first value, oldest link first (the order the cell shows), with the read field's sort key. */
    sortKeyFor(field, row) {
      const target = targetOf(field);
      const col = target && targetColumn(target);
      return col ? firstValueKey(field, row, target, col, 'j.created_at, t.id') : NO_KEY;
    },
    usersIn: peopleIn,
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

/** Whether a function applies to a field: by its values' SQL type (NEEDS); `concat` needs a text form, or numbers. */
function fits(fn: RollupFunction, target: FieldMeta & { fieldType: FieldType }): boolean {
  const valueType = valueTypeOf(target.fieldType, target.options) ?? '';
  if (fn === 'concat') return textFormSql(target.fieldType, target, 'v') !== undefined || NUMERIC_COLUMNS.has(valueType);
  const needs = NEEDS[fn];
  return !needs || needs.has(valueType);
}

/** The ops of the field a rollup reads, tested on the rollup's value (an aggregate of that field's type). */
function opsReading(target: TargetField): FilterOps {
  return Object.fromEntries(Object.entries(opsOf(target)).map(([op, compile]): [string, FilterCompiler] => [op, (col, value, _rollup, ctx) => compile!(col, value, target, ctx)]));
}

/**
 * `rollup`: one value from a field of the linked records — `count` (non-empty values), `sum`,
 * `avg`, `min`, `max` (numbers; min/max also dates), `earliest`, `latest` (dates), `concat` (the
 * values as text, comma-separated, oldest link first), `unique` (the distinct values). Filtered
 * and sorted by that value: numbers, the read field's type, text; `unique` like a lookup.
 */
export function createRollupType(types: FieldTypeRegistry): FieldType<RollupOptions> {
  const aggregate = (fn: RollupFunction, col: string, target: TargetField): string => {
    switch (fn) {
      case 'count': return `count(${col})::int`;
      case 'sum': return `sum(${col})`;
      case 'avg': return `avg(${col})`;
      case 'min': case 'earliest': return `min(${col})`;
      case 'max': case 'latest': return `max(${col})`;
      // Each value as the field reads as text (a select's label, not its id).
      case 'concat': return `string_agg(${textFormSql(target.fieldType, target, col) ?? `${col}::text`}, ', ' ORDER BY j.created_at, t.id)`;
      case 'unique': return `coalesce(json_agg(DISTINCT ${col}) FILTER (WHERE ${col} IS NOT NULL), '[]'::json)`;
    }
  };
  const numeric = (o: RollupOptions) => o.function === 'count' || o.function === 'sum' || o.function === 'avg';
  /** The field read and its SQL, while the function fits it: it may have been converted or deleted since. */
  const reading = (field: FieldMeta<RollupOptions>): { target: TargetField; col: string } | undefined => {
    const target = targetOf(field);
    const col = target && targetColumn(target);
    return col && fits(field.options.function, target) ? { target, col } : undefined;
  };
  const rolled = (field: FieldMeta<RollupOptions>, read: { target: TargetField; col: string }) =>
    overLinked(field, aggregate(field.options.function, read.col, read.target));
  const cell = (field: FieldMeta<RollupOptions>, row: string, read: { target: TargetField; col: string }) => cellOf(rolled(field, read), row);
  return defineFieldType<RollupOptions>({
    type: 'rollup',
    cell: {
      schema: { description: 'count, sum, avg: a number; min, max, earliest, latest: a value of the field read; concat: text; unique: an array.' },
      example: 1500,
      writes: 'Read-only.',
    },
    options: Type.Object(
      { ...linkedOptionProperties, ...targetFieldProperty, function: Type.Union(ROLLUP_FUNCTIONS.map((f) => Type.Literal(f))) },
      { additionalProperties: false },
    ),
    optionsExample: { link_field_id: 'deals', target_field_id: 'amount', function: 'sum' },
    readOnly: true,
    async resolveOptions(trx: Db, databaseId: string, options: RollupOptions, writer: OptionsWriter) {
      const { target, ...resolved } = await resolveLinked(trx, databaseId, options, writer, true);
      refuseComputedTarget(types, target!);
      if (!fits(options.function, { ...target!, fieldType: types.get(target!.type)! })) {
        throw invalidField('/options/function', `"${options.function}" does not apply to a ${target!.type} field.`);
      }
      return resolved;
    },
    select(field, row) {
      const read = reading(field);
      // A sum over what is now text is empty, not an error.
      return read ? cell(field, row, read) : 'NULL';
    },
    aggregate(field) {
      const read = reading(field);
      return read && rolled(field, read);
    },
    // `unique` shows the linked values themselves: filtered like a lookup, through the links.
    across: { ...acrossLinks<RollupOptions>(true), applies: (field) => field.options.function === 'unique' },
    reaches: reachesLinked<RollupOptions>([...SHOWN_UNSEEN, 'function']),
    opsFor(field) {
      const read = reading(field);
      if (!read) return PRESENCE_OPS;
      if (numeric(field.options)) return NUMBER_OPS;
      return field.options.function === 'concat' ? TEXT_OPS : opsReading(read.target);
    },
    sortKeyFor(field, row) {
      const read = reading(field);
      if (!read) return NO_KEY;
      const value = cell(field, row, read);
      switch (field.options.function) {
        case 'count': return { expr: value, type: 'integer' };
        case 'sum': case 'avg': return { expr: value, type: 'numeric' };
        case 'concat': return { expr: `lower(${value}) COLLATE "C"`, type: 'text' };
        // Its first value as the cell shows the distinct values: the least by the read field's key.
        case 'unique': return firstValueKey(field, row, read.target, read.col, '1');
        // min, max, earliest, latest: of one record, its value.
        default: return reachesOne(field.options) ? firstValueKey(field, row, read.target, read.col, '1') : columnSortKey(read.target, value);
      }
    },
    // Only `unique` shows people (min and max do not read user fields).
    usersIn: (value, field) => (field.options.function === 'unique' ? peopleIn(value, field) : []),
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
