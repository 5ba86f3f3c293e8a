import type { FieldTypeRegistry } from './field-types/registry.ts';
import type { Field } from './schemas.ts';

export interface FieldRow {
  id: string;
  database_id: string;
  name: string;
  api_name: string;
  type: string;
  options: Record<string, unknown>;
  column_name: string | null;
  is_title: boolean;
  synced: boolean;
  position: number;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const FIELD_COLUMNS = ['id', 'database_id', 'name', 'api_name', 'type', 'options', 'column_name', 'is_title', 'synced', 'position', 'deleted_at', 'created_at', 'updated_at'];

export function toField(row: FieldRow, types: FieldTypeRegistry): Field {
  return {
    id: row.id,
    database_id: row.database_id,
    name: row.name,
    api_name: row.api_name,
    type: row.type,
    options: row.options,
    is_title: row.is_title,
    read_only: !!types.get(row.type)?.readOnly,
    synced: !!row.synced,
    position: row.position,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
