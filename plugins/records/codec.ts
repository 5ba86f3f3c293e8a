import { canonicalJson } from '../../core/canonical-json.ts';
import type { ErrorDetail } from '../../core/errors.ts';
import { READ_ONLY } from './errors.ts';
import { escapePointer } from '../../core/schema.ts';
import { instantOut, InvalidCell, type OutputContext } from '../databases/public.ts';
import { sourceOf } from './computed-reads.ts';
import type { LiveField } from './live-fields.ts';
import type { RecordRow } from './record-row.ts';
import type { RecordTable } from './record-table.ts';
import type { ApiRecord } from './schemas.ts';

/** A cell of a field stored outside the records table (a link), written after the record's row. */
export interface DecodedCell {
  field: LiveField;
  value: unknown;
  pointer: string;
}

/** A `values` object turned into column values and outside cells, with the user ids it names (checked by the caller). */
export interface DecodedValues {
  columns: Record<string, unknown>;
  cells: DecodedCell[];
  users: Array<{ id: string; pointer: string }>;
}

/**
 * API values → column values. Every problem is appended to `errors` (pointer under `base`), so
 * a request reports all its bad cells at once; the caller refuses it if any were found.
 */
export function decodeValues(table: RecordTable, values: Record<string, unknown>, base: string, errors: ErrorDetail[], writesSynced = false): DecodedValues {
  const decoded: DecodedValues = { columns: {}, cells: [], users: [] };
  for (const apiName in values) {
    if (!Object.hasOwn(values, apiName)) continue;
    const value = values[apiName];
    const field = table.byApiName.get(apiName);
    if (!field) {
      errors.push({ pointer: cellPointer(base, apiName), detail: `No field "${apiName}" in this database.` });
      continue;
    }
    if (field.fieldType.readOnly || (!field.column_name && !field.fieldType.store)) {
      errors.push({ pointer: cellPointer(base, apiName), detail: `The ${field.type} field "${apiName}" is read-only.`, code: READ_ONLY });
      continue;
    }
    if (field.synced && !writesSynced) {
      errors.push({ pointer: cellPointer(base, apiName), detail: `The field "${apiName}" is written by its source's syncs only.`, code: READ_ONLY });
      continue;
    }
    let stored: unknown = null;
    if (value !== null) {
      try {
        stored = field.fieldType.fromApi(value, field);
      } catch (err) {
        if (!(err instanceof InvalidCell)) throw err;
        errors.push({ pointer: cellPointer(base, apiName), detail: err.detail });
        continue;
      }
    }
    if (stored === null) stored = field.fieldType.emptyValue ?? null;
    else if (field.fieldType.refersToUsers) decoded.users.push({ id: String(stored), pointer: cellPointer(base, apiName) });
    if (field.column_name) decoded.columns[field.column_name] = stored;
    else decoded.cells.push({ field, value: stored, pointer: cellPointer(base, apiName) });
  }
  return decoded;
}

/**
 * Built only when needed, and by a module function rather than a closure per cell: tsx keeps
 * function names by wrapping every named closure, which cost a bulk of 1,000 cells ~1 ms.
 */
function cellPointer(base: string, apiName: string): string {
  return `${base}/values/${escapePointer(apiName)}`;
}

/** Every user id rows show: their creators, last editors and user cells. */
export function usersShown(rows: RecordRow[], fields: LiveField[]): Set<string> {
  const ids = new Set<string>();
  const userColumns = fields.filter((f) => f.fieldType.refersToUsers && f.column_name).map((f) => f.column_name!);
  const computed = fields.filter((f) => f.fieldType.usersIn);
  for (const row of rows) {
    if (row.created_by) ids.add(row.created_by);
    if (row.updated_by) ids.add(row.updated_by);
    for (const column of userColumns) if (row[column] != null) ids.add(String(row[column]));
    for (const f of computed) {
      const value = row[sourceOf(f)!];
      if (value != null) for (const id of f.fieldType.usersIn!(value, f)) ids.add(id);
    }
  }
  return ids;
}

/** A row as the API shows it: a value (or null) for every field shown (all live fields unless a query chose some). */
export function encodeRecord(row: RecordRow, ctx: OutputContext, fields: LiveField[]): ApiRecord {
  return {
    id: row.id,
    number: Number(row.number),
    values: encodeValues(row, ctx, fields),
    position: row.position,
    version: row.version,
    created_at: instantOut(row.created_at),
    created_by: row.created_by,
    updated_at: instantOut(row.updated_at),
    updated_by: row.updated_by,
  };
}

/** A record's `values` alone, as `encodeRecord` gives them. */
export function encodeValues(row: RecordRow, ctx: OutputContext, fields: LiveField[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of fields) {
    const source = sourceOf(field);
    const raw = source ? row[source] : null;
    values[field.api_name] = raw == null ? (field.fieldType.emptyValue ?? null) : field.fieldType.toApi(raw, field, ctx);
  }
  return values;
}

/**
 * A `record.updated` event's `before`: the record as it was, its `values` cut to those that
 * changed (the event's `after` has them all). Events are stored as JSON, and a batch of 200 full
 * before-and-after pairs cost more to store than the update itself.
 */
export function changedBefore(before: ApiRecord, after: ApiRecord): ApiRecord {
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(before.values)) {
    if (!sameCell(value, after.values[name])) values[name] = value;
  }
  return { ...before, values };
}

/** The ids of the fields whose cells differ between two presentations of a record. */
export function changedFieldIds(fields: LiveField[], before: ApiRecord | null, after: ApiRecord | null): string[] {
  return fields.filter((f) => !sameCell(before?.values[f.api_name] ?? null, after?.values[f.api_name] ?? null)).map((f) => f.id);
}

/** Whether two presented cells hold the same value: most are scalars, compared without serialising them. */
function sameCell(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return typeof a === 'object' && typeof b === 'object' && a !== null && b !== null && canonicalJson(a) === canonicalJson(b);
}
