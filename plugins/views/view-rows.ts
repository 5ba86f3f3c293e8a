import type { Db } from '../../core/db.ts';
import type { RecordTable } from '../records/public.ts';
import type { View, ViewType } from './schemas.ts';
import { toSettings, type StoredConfig } from './view-config.ts';

export interface ViewRow {
  id: string;
  workspace_id: string;
  database_id: string;
  name: string;
  type: ViewType;
  is_default: boolean;
  position: number;
  config: StoredConfig;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  published_at: Date | null;
}

/** A view's row with its publication, if any. */
export function selectViews(db: Db, databaseId: string): ReturnType<Db> {
  return db('database_views as v')
    .leftJoin('view_publications as p', 'p.view_id', 'v.id')
    .where('v.database_id', databaseId)
    .select('v.id', 'v.workspace_id', 'v.database_id', 'v.name', 'v.type', 'v.is_default', 'v.position', 'v.config', 'v.created_by', 'v.created_at', 'v.updated_at', 'p.published_at');
}

export function toView(row: ViewRow, table: RecordTable): View {
  const settings = toSettings(table, row.config ?? {});
  return {
    id: row.id,
    database_id: row.database_id,
    name: row.name,
    type: row.type,
    is_default: row.is_default,
    position: row.position,
    ...settings,
    filter: settings.filter as View['filter'],
    published: row.published_at !== null,
    published_at: row.published_at ? row.published_at.toISOString() : null,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
