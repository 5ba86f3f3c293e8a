import type { Db } from '../../core/db.ts';
import { safeSegment } from '../../core/zip-writer.ts';
import type { WorkspaceExportHooks } from '../export/public.ts';
import type { AttachmentService, DatabaseFile } from './attachments.service.ts';

/**
 * The attachments plugin's part in a workspace export: every file in a cell at
 * `attachments/<database_id>/<record_id>/<attachment_id>/<name>` (a duplicate's shared bytes are written once per cell
 * holding them, as a user would expect to find them), and `attachments/index.json` saying which record and field
 * each belongs to. Images are stored as they are: deflating them again gains nothing.
 */
export function tapWorkspaceExport(hooks: WorkspaceExportHooks, service: () => AttachmentService, db: Db): void {
  hooks.contribute.tapPromise('attachments', async (entries, { workspaceId }) => {
    const files = await service().filesOf(db, { workspace_id: workspaceId });
    if (files.length === 0) return entries;
    // The name as the zip writer will make it, so the index names the entry exactly.
    const pathOf = (a: Pick<DatabaseFile, 'id' | 'database_id' | 'record_id' | 'name'>) => `attachments/${a.database_id}/${a.record_id}/${a.id}/${safeSegment(a.name)}`;
    const index = files.map(({ blob_key: _key, ...shown }) => ({ ...shown, path: pathOf(shown) }));
    return [
      ...entries,
      { path: 'attachments/index.json', content: JSON.stringify(index, null, 2) },
      ...files.map((a) => ({ path: pathOf(a), blobKey: a.blob_key, compress: !a.mime_type.startsWith('image/') })),
    ];
  });
}
