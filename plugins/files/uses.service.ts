import type { Db } from '../../core/db.ts';

export type UseOwner = { kind: 'document'; id: string; spaceId: string } | { kind: 'description'; id: string; databaseId: string };

/** Which files documents and record descriptions show, kept in their writing transactions. */
export class FileUses {
  /** What `owner` shows now: exactly these of the workspace's files (those of `fileIds` it holds). */
  async record(trx: Db, workspaceId: string, owner: UseOwner, fileIds: string[]): Promise<void> {
    await this.forget(trx, owner.kind, [owner.id]);
    if (fileIds.length === 0) return;
    const ours = (await trx('files').where({ workspace_id: workspaceId }).whereIn('id', fileIds).pluck('id')) as string[];
    if (ours.length === 0) return;
    const where = owner.kind === 'document' ? { space_id: owner.spaceId, database_id: null } : { space_id: null, database_id: owner.databaseId };
    await trx('files_uses').insert(ours.map((fileId) => ({ file_id: fileId, owner_kind: owner.kind, owner_id: owner.id, ...where })));
  }

  /** Owners gone: what they showed is no longer shown by them. The files they showed. */
  async forget(trx: Db, kind: UseOwner['kind'], ownerIds: string[]): Promise<string[]> {
    if (ownerIds.length === 0) return [];
    return (await trx('files_uses').where({ owner_kind: kind }).whereIn('owner_id', ownerIds).delete().returning('file_id')).map((r: { file_id: string }) => r.file_id);
  }

  async forgetDatabase(trx: Db, databaseId: string): Promise<string[]> {
    return (await trx('files_uses').where({ database_id: databaseId }).delete().returning('file_id')).map((r: { file_id: string }) => r.file_id);
  }

  /** The files shown by the documents of `spaceIds` and the descriptions of `recordIds`: what a pack of them takes along. */
  async shownIn(trx: Db, spaceIds: string[], recordIds: string[]): Promise<string[]> {
    if (spaceIds.length === 0 && recordIds.length === 0) return [];
    return (await trx('files_uses')
      .where((w) => w.where('owner_kind', 'document').whereIn('space_id', spaceIds))
      .orWhere((w) => w.where('owner_kind', 'description').whereIn('owner_id', recordIds))
      .distinct('file_id')
      .pluck('file_id')) as string[];
  }

  /** Those of `fileIds` something still shows. */
  async used(trx: Db, fileIds: string[]): Promise<Set<string>> {
    if (fileIds.length === 0) return new Set();
    return new Set((await trx('files_uses').whereIn('file_id', fileIds).distinct('file_id').pluck('file_id')) as string[]);
  }
}
