import type { Location, LocateRequest } from '../../core/authz.ts';
import type { Db } from '../../core/db.ts';

/**
 * Answers `auth.locate` for documents: inside their space, so space grants and guests' spaces apply, with their
 * creator. Asked in a transaction with `lock`, the row is held FOR SHARE until commit.
 */
export async function locateDocument(db: Db, req: LocateRequest): Promise<Location | undefined> {
  const q = (req.trx ?? db)('documents').where({ id: req.id, workspace_id: req.workspaceId });
  const row = (await (req.lock ? q.forShare() : q).first('space_id', 'created_by')) as { space_id: string; created_by: string | null } | undefined;
  return row ? { path: [{ type: 'space', id: row.space_id }], createdBy: row.created_by } : undefined;
}
