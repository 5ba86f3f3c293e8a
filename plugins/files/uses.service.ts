import type { Db } from '../../core/db.ts';

export type UseOwner = { kind: 'document'; id: string } | { kind: 'description'; id: string; databaseId: string };

/** Which files documents and record descriptions show, kept in their writing transactions. */
export class FileUses {
  /** What `owner` shows now: exactly these of the workspace's files (those of `fileIds` it holds). */
  async record(trx: Db, workspaceId: string, owner: UseOwner, fileIds: string[]): Promise<void> {
    await this.forget(trx, owner.kind, [owner.id]);
    if (fileIds.length === 0) return;
    const ours = (await trx('files').where({ workspace_id: workspaceId }).whereIn('id', fileIds).pluck('id')) as string[];
    if (ours.length === 0) return;
    const databaseId = owner.kind === 'description' ? owner.databaseId : null;
    await trx('files_uses').insert(ours.map((fileId) => ({ file_id: fileId, owner_kind: owner.kind, owner_id: owner.id, database_id: databaseId })));
  }

  async forget(trx: Db, kind: UseOwner['kind'], ownerIds: string[]): Promise<void> {
    if (ownerIds.length > 0) await trx('files_uses').where({ owner_kind: kind }).whereIn('owner_id', ownerIds).delete();
  }

  async forgetDatabase(trx: Db, databaseId: string): Promise<void> {
    await trx('files_uses').where({ database_id: databaseId }).delete();
  }

  /** Those of `fileIds` something still shows. */
  async used(trx: Db, fileIds: string[]): Promise<Set<string>> {
    if (fileIds.length === 0) return new Set();
    return new Set((await trx('files_uses').whereIn('file_id', fileIds).distinct('file_id').pluck('file_id')) as string[]);
  }
}
