import { inTransaction, type Db, type Trx } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import { invalidField, notFound } from '../../core/errors.ts';
import type { WorkspaceService } from '../workspaces/public.ts';
import { MAX_FOLDER_DEPTH, type CreateFolderBody, type Folder, type PatchFolderBody } from './schemas.ts';

type FolderRow = {
  id: string;
  workspace_id: string;
  space_id: string;
  parent_id: string | null;
  name: string;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
};

function toFolder(row: FolderRow): Folder {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    space_id: row.space_id,
    parent_id: row.parent_id,
    name: row.name,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const COLUMNS = ['id', 'workspace_id', 'space_id', 'parent_id', 'name', 'created_by', 'created_at', 'updated_at'];

/** The folder and its ancestors, nearest first. */
const ANCESTRY = `WITH RECURSIVE chain AS (
  SELECT id, parent_id FROM folders WHERE id = ?
  UNION ALL
  SELECT f.id, f.parent_id FROM folders f JOIN chain c ON f.id = c.parent_id
) SELECT id FROM chain`;

/** How many levels the subtree under a folder spans, the folder itself included. */
const HEIGHT = `WITH RECURSIVE sub AS (
  SELECT id, 1 AS level FROM folders WHERE id = ?
  UNION ALL
  SELECT f.id, s.level + 1 FROM folders f JOIN sub s ON f.parent_id = s.id
) SELECT max(level) AS height FROM sub`;

/**
 * Folders inside a space: a tree, at most MAX_FOLDER_DEPTH deep, never a cycle.
 * Updates and deletions lock their space's row (FOR NO KEY UPDATE), creates hold it FOR SHARE:
 * changes to one tree run one at a time (creates side by side), so no two can each pass the
 * depth and cycle checks and together break them, nor deadlock over rows of one subtree.
 */
export class FolderService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly workspaces: WorkspaceService,
  ) {}

  async create(principal: UserPrincipal, workspaceId: string, spaceId: string, body: CreateFolderBody, inTrx?: Db): Promise<Folder> {
    return inTransaction(this.db, async (trx) => {
      await this.workspaces.hold(trx, workspaceId);
      const space = await trx('spaces').where({ id: spaceId, workspace_id: workspaceId }).forShare().first('id');
      if (!space) throw notFound();
      const parentId = body.parent_id ?? null;
      if (parentId) {
        await this.holdParent(trx, workspaceId, spaceId, parentId);
        if ((await this.ancestry(trx, parentId)).length >= MAX_FOLDER_DEPTH) throw tooDeep();
      }
      const [row] = await trx('folders')
        .insert({ workspace_id: workspaceId, space_id: spaceId, parent_id: parentId, name: body.name.trim(), created_by: principal.user.id })
        .returning(COLUMNS);
      const folder = toFolder(row);
      await this.events.emit(trx, { name: 'folder.created', workspaceId, actorId: principal.user.id, payload: { folder } });
      return folder;
    }, inTrx);
  }

  /** Every folder of a space, oldest first; `parent_id` gives the tree. */
  async list(workspaceId: string, spaceId: string, page: { limit?: number; cursor?: string }): Promise<Page<Folder>> {
    const q = this.db('folders').where({ space_id: spaceId, workspace_id: workspaceId }).select(COLUMNS);
    const result = await keysetPage<FolderRow>(this.db, q, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'asc' }, page);
    return { data: result.data.map(toFolder), next_cursor: result.next_cursor };
  }

  /** Renames and/or moves a folder, its subfolders with it. */
  async update(principal: UserPrincipal, workspaceId: string, id: string, body: PatchFolderBody): Promise<Folder> {
    return inTransaction(this.db, async (trx) => {
      const spaceId = await this.lockTreeOf(trx, workspaceId, id);
      const patch: Record<string, unknown> = { updated_at: trx.fn.now() };
      if (body.name !== undefined) patch.name = body.name.trim();
      if (body.parent_id !== undefined) {
        if (body.parent_id !== null) await this.checkMove(trx, workspaceId, spaceId, id, body.parent_id);
        patch.parent_id = body.parent_id;
      }
      const [row] = await trx('folders').where({ id }).update(patch).returning(COLUMNS);
      const folder = toFolder(row);
      await this.events.emit(trx, { name: 'folder.updated', workspaceId, actorId: principal.user.id, payload: { folder } });
      return folder;
    });
  }

  /** Deletes a folder; its subfolders go by cascade. */
  async delete(principal: UserPrincipal, workspaceId: string, id: string, inTrx?: Db): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      await this.lockTreeOf(trx, workspaceId, id);
      const [row] = await trx('folders').where({ id }).delete().returning(COLUMNS);
      await this.events.emit(trx, { name: 'folder.deleted', workspaceId, actorId: principal.user.id, payload: { folder: toFolder(row) } });
    }, inTrx);
  }

  /** Holds the workspace, then locks the tree of the folder's space; the folder's space id, or 404 when it is gone. */
  private async lockTreeOf(trx: Trx, workspaceId: string, id: string): Promise<string> {
    await this.workspaces.hold(trx, workspaceId);
    const found = await trx('folders').where({ id, workspace_id: workspaceId }).first('space_id');
    if (!found) throw notFound();
    await trx('spaces').where({ id: found.space_id }).forNoKeyUpdate().first('id');
    // Gone while we waited for the space: deleted with it, or on its own.
    if (!(await trx('folders').where({ id }).forUpdate().first('id'))) throw notFound();
    return found.space_id;
  }

  private async checkMove(trx: Trx, workspaceId: string, spaceId: string, id: string, parentId: string): Promise<void> {
    await this.holdParent(trx, workspaceId, spaceId, parentId);
    const ancestry = await this.ancestry(trx, parentId);
    if (ancestry.includes(id)) throw invalidField('/parent_id', 'A folder cannot move into itself or one of its subfolders.');
    const { rows } = await trx.raw(HEIGHT, [id]);
    if (ancestry.length + Number(rows[0].height) > MAX_FOLDER_DEPTH) throw tooDeep();
  }

  /** The parent must be a folder of the same space; it is held until commit so that it cannot vanish under the new child. */
  private async holdParent(trx: Trx, workspaceId: string, spaceId: string, parentId: string): Promise<void> {
    const parent = await trx('folders').where({ id: parentId, workspace_id: workspaceId }).forShare().first('space_id');
    if (parent?.space_id !== spaceId) throw invalidField('/parent_id', 'The parent must be a folder of the same space.');
  }

  private async ancestry(trx: Trx, folderId: string): Promise<string[]> {
    const { rows } = await trx.raw(ANCESTRY, [folderId]);
    return rows.map((r: { id: string }) => r.id);
  }
}

const tooDeep = () => invalidField('/parent_id', `Folders nest at most ${MAX_FOLDER_DEPTH} deep.`);
