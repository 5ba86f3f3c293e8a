import type { FieldMeta, FieldType, FieldTypeRegistry } from '../databases/public.ts';

/** A live field as the records engine uses it: its metadata, its column and its type. */
export interface LiveField extends FieldMeta {
  /** The display name when the fields were read (history copies it, so renames keep old entries readable). */
  name: string;
  column_name: string | null;
  is_title: boolean;
  /** A source writes it (`fields.synced`): only writes whose origin is a sync may. */
  synced: boolean;
  fieldType: FieldType;
  /** The live field of another database that `options.target_field_id` names (lookups, rollups). */
  target?: TargetField;
}

/** A field of another database a computed field reads. */
export interface TargetField extends FieldMeta {
  column_name: string | null;
  fieldType: FieldType;
}

/** The fields of a database as `databases.catalog.fieldRows` reads them, with their types. */
export function liveFields(rows: Array<Record<string, any>>, types: FieldTypeRegistry): LiveField[] {
  // A field whose type's plugin is disabled is invisible until the plugin is back.
  return rows.flatMap((r) => {
    const fieldType = types.get(r.type);
    if (!fieldType) return [];
    const targetType = r.target_id ? types.get(r.target_type) : undefined;
    const target = targetType ? { id: r.target_id, api_name: r.target_api_name, type: r.target_type, options: r.target_options, column_name: r.target_column_name, fieldType: targetType } : undefined;
    return [{ id: r.id, api_name: r.api_name, name: r.name, type: r.type, options: r.options, column_name: r.column_name, is_title: r.is_title, synced: !!r.synced, fieldType, ...(target ? { target } : {}) }];
  });
}
