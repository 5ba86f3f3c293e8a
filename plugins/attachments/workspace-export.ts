import type { Db } from '../../core/db.ts';
import { safeSegment } from '../../core/zip-writer.ts';
import type { WorkspaceExportHooks } from '../export/public.ts';

interface ExportedAttachment {
  id: string;
  database_id: string;
  record_id: string;
  field_id: string;
  name: string;
  mime_type: string;
  size: number;
  blob_key: string;
}

/**
 * The attachments plugin's part in a workspace export: every file in a cell at
 * `attachments/<database_id>/<record_id>/<attachment_id>/<name>` (a duplicate's shared bytes are written once per cell
 * holding them, as a user would expect to find them), and `attachments/index.json` saying which record and field
 * each belongs to. Images are stored as they are: deflating them again gains nothing.
 */
export function tapWorkspaceExport(hooks: WorkspaceExportHooks, db: Db): void {
  hooks.contribute.tapPromise('attachments', async (entries, { workspaceId }) => {
    const rows = (await db('attachments as a')
      .join('attachment_blobs as b', 'b.key', 'a.blob_key')
      .where('a.workspace_id', workspaceId)
      .whereNotNull('a.position')
      .orderBy(['a.database_id', 'a.record_id', 'a.field_id', 'a.position'])
      .select('a.id', 'a.database_id', 'a.record_id', 'a.field_id', 'a.name', 'b.mime_type', 'b.size', 'a.blob_key')) as ExportedAttachment[];
    if (rows.length === 0) return entries;
    // The name as the zip writer will make it, so the index names the entry exactly.
    const pathOf = (a: ExportedAttachment) => `attachments/${a.database_id}/${a.record_id}/${a.id}/${safeSegment(a.name)}`;
    const index = rows.map((a) => ({ id: a.id, database_id: a.database_id, record_id: a.record_id, field_id: a.field_id, name: a.name, mime_type: a.mime_type, size: Number(a.size), path: pathOf(a) }));
    return [
      ...entries,
      { path: 'attachments/index.json', content: JSON.stringify(index, null, 2) },
      ...rows.map((a) => ({ path: pathOf(a), blobKey: a.blob_key, compress: !a.mime_type.startsWith('image/') })),
    ];
  });
}
