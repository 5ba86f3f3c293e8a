import type { Db } from '../../core/db.ts';
import { safeSegment } from '../../core/zip-writer.ts';
import type { WorkspaceExportHooks } from '../export/public.ts';

/**
 * The documents plugin's part in a workspace export: each standalone document as `documents/<title>.json` and each
 * record description as `record_descriptions/<database_id>/<record_id>.json`, content (TipTap JSON) included. Only ids
 * and titles are listed up front; each content is read when its entry is written.
 */
export function tapWorkspaceExport(hooks: WorkspaceExportHooks, db: Db): void {
  hooks.contribute.tapPromise('documents', async (entries, { workspaceId }) => {
    const documents = (await db('documents').where({ workspace_id: workspaceId }).orderBy(['created_at', 'id']).select('id', 'title')) as Array<{ id: string; title: string }>;
    const descriptions = (await db('document_descriptions').where({ workspace_id: workspaceId }).orderBy(['database_id', 'record_id']).select('database_id', 'record_id')) as Array<{ database_id: string; record_id: string }>;
    return [
      ...entries,
      ...documents.map(({ id, title }) => ({
        path: `documents/${safeSegment(title)}.json`,
        open: async () => JSON.stringify(await db('documents').where({ id }).first('id', 'space_id', 'folder_id', 'title', 'content', 'version', 'created_at', 'created_by', 'updated_at', 'updated_by'), null, 2),
      })),
      ...descriptions.map(({ database_id, record_id }) => ({
        path: `record_descriptions/${database_id}/${record_id}.json`,
        open: async () => JSON.stringify(await db('document_descriptions').where({ database_id, record_id }).first('database_id', 'record_id', 'content', 'version', 'updated_at', 'updated_by'), null, 2),
      })),
    ];
  });
}
