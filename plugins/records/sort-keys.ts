import type { ErrorDetail } from '../../core/errors.ts';
import type { FieldMeta, FieldSortKey, FieldType, SystemColumn } from '../databases/public.ts';
import { columnOf } from './filter-compiler.ts';
import type { RecordTable } from './record-table.ts';

export const MAX_SORTS = 5;

/** One key of a page's order: an SQL expression, the SQL type of its value (cursors carry it as text), a direction. */
export interface SortKey {
  expr: string;
  type: string;
  direction: 'asc' | 'desc';
  /** Whether the key can be NULL (nulls sort last in both directions). */
  nullable: boolean;
  /** A LEFT JOIN the key reads from (FieldSortKey.join). */
  join?: string;
}

export interface SortInput {
  field: string;
  direction?: 'asc' | 'desc';
}

const SYSTEM_TYPES: Record<SystemColumn, string> = {
  number: 'bigint',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  created_by: 'uuid',
  updated_by: 'uuid',
};

/** The SQL type of a field's values: its column's, or that of the system column its type reads. */
export function valueTypeOf(fieldType: FieldType, options: unknown): string | undefined {
  return fieldType.column?.(options) ?? (fieldType.systemColumn ? SYSTEM_TYPES[fieldType.systemColumn] : undefined);
}

/**
 * A field's sort key from its type's `sortExpr`/`sortType`, on `col`, the SQL of its value; also
 * how a lookup sorts by the field it reads, on the linked row.
 */
export function columnSortKey(field: FieldMeta & { fieldType: FieldType }, col: string): FieldSortKey {
  const type = field.fieldType;
  return { expr: type.sortExpr ? type.sortExpr(col, field) : col, type: type.sortType ?? valueTypeOf(type, field.options)! };
}

/** The final tie-break of every order: ids are unique, so pages never overlap nor skip. */
export const ID_KEY: SortKey = { expr: '"id"', type: 'uuid', direction: 'asc', nullable: false };

/** Manual order: the fractional position, then id. */
export const MANUAL_KEYS: SortKey[] = [{ expr: '"position"', type: 'text', direction: 'asc', nullable: false }, ID_KEY];

/** `sorts` → sort keys ending with `id`; an unknown field is reported at its pointer. No sorts: manual order. */
export function sortKeys(table: RecordTable, sorts: SortInput[] | undefined, base: string, errors: ErrorDetail[]): SortKey[] {
  if (!sorts || sorts.length === 0) return MANUAL_KEYS;
  const keys = sorts.flatMap((sort, i): SortKey[] => {
    const field = table.byApiName.get(sort.field);
    if (!field) {
      errors.push({ pointer: `${base}/${i}/field`, detail: `No field "${sort.field}" in this database.` });
      return [];
    }
    const type = field.fieldType;
    const direction = sort.direction ?? 'asc';
    // Computed per field: NULL when nothing is linked, whatever the cell shows for that.
    if (type.sortKeyFor) return [{ ...type.sortKeyFor(field, `"${table.table}"`), direction, nullable: true }];
    if (!field.column_name && !type.systemColumn && !type.sortExpr) {
      errors.push({ pointer: `${base}/${i}/field`, detail: `Records cannot be sorted by a ${field.type} field.` });
      return [];
    }
    const system = type.systemColumn;
    return [{
      ...columnSortKey(field, columnOf(field, table.table)),
      direction,
      // System columns always hold a value, except the people columns of a deleted account.
      nullable: !(system && system !== 'created_by' && system !== 'updated_by') && type.emptyValue === undefined,
    }];
  });
  return [...keys, ID_KEY];
}
