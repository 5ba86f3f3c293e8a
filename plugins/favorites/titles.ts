import type { LiveField, RecordTable } from '../records/public.ts';

function titleField(table: RecordTable): LiveField | undefined {
  return table.fields.find((f) => f.is_title);
}

/** The column holding a database's title cells (its own, or the system column it reads); null when the title's type is not loaded. */
export function titleColumn(table: RecordTable): string | null {
  const field = titleField(table);
  return field ? (field.column_name ?? field.fieldType.systemColumn ?? null) : null;
}

/**
 * A title cell, read as text (`::text`, what the driver would parse), as plain text: the API value
 * written as CSV writes it, so numbers keep their precision and instants show in the field's zone.
 */
export function plainTitle(table: RecordTable, raw: string | null): string | null {
  const field = titleField(table);
  if (raw === null || !field) return null;
  const text = field.fieldType.csv.format(field.fieldType.toApi(raw, field, { users: new Map() }), field);
  return text === '' ? null : text;
}
