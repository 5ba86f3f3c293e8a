import { inTransaction, type Db } from '../../core/db.ts';
import type { SpaceLifecycle } from './hooks.ts';
import type { EventBus } from '../../core/events.ts';
import type { Authz, WorkspaceAccess } from '../../core/authz.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import { notFound } from '../../core/errors.ts';
import type { WorkspaceService } from '../workspaces/public.ts';
import type { CreateSpaceBody, PatchSpaceBody, Space } from './schemas.ts';

type SpaceRow = {
  id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
};

export function toSpace(row: SpaceRow): Space {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    name: row.name,
    description: row.description,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const COLUMNS = ['id', 'workspace_id', 'name', 'description', 'created_by', 'created_at', 'updated_at'];

/** Spaces: the units a workspace's content is grouped in, and what guests and grants are scoped to. */
export class SpaceService {
  constructor(
    private readonly db: Db,
    private readonly lifecycle: SpaceLifecycle,
    private readonly events: EventBus,
    private readonly authz: Authz,
    private readonly workspaces: WorkspaceService,
  ) {}

  async create(principal: UserPrincipal, workspaceId: string, body: CreateSpaceBody, inTrx?: Db): Promise<Space> {
    return inTransaction(this.db, async (trx) => {
      await this.workspaces.hold(trx, workspaceId);
      const [row] = await trx('spaces')
        .insert({ workspace_id: workspaceId, name: body.name.trim(), description: body.description ?? null, created_by: principal.user.id })
        .returning(COLUMNS);
      const space = toSpace(row);
      await this.events.emit(trx, { name: 'space.created', workspaceId, actorId: principal.user.id, payload: { space } });
      return space;
    }, inTrx);
  }

  /**
   * The spaces the caller can see, oldest first. Whoever sees a space it holds nothing on
   * sees them all; anyone else (a guest) sees only the spaces it holds a role on, so the
   * filter is a short id list however big the workspace.
   */
  async listVisible(principal: UserPrincipal, access: WorkspaceAccess, page: { limit?: number; cursor?: string }): Promise<Page<Space>> {
    const q = this.db('spaces').where('workspace_id', access.workspaceId).select(COLUMNS);
    if (!this.authz.canSee(principal, access, [{ type: 'space', id: '' }])) {
      const ids = [...access.nodeRoles.keys()]
        .filter((key) => key.startsWith('space:'))
        .map((key) => key.slice('space:'.length))
        .filter((id) => this.authz.canSee(principal, access, [{ type: 'space', id }]));
      if (ids.length === 0) return { data: [], next_cursor: null };
      q.whereIn('id', ids);
    }
    const result = await keysetPage<SpaceRow>(this.db, q, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'asc' }, page);
    return { data: result.data.map(toSpace), next_cursor: result.next_cursor };
  }

  /** Every space of the instance in id order, `limit` after `after` (null: from the first): for indexes built in the background (search). */
  async pageById(after: string | null, limit: number): Promise<Space[]> {
    const q = this.db('spaces').orderBy('id').limit(limit).select(COLUMNS);
    if (after) q.where('id', '>', after);
    return (await q).map(toSpace);
  }

  async get(workspaceId: string, id: string, trx: Db = this.db): Promise<Space | null> {
    const row = await trx('spaces').where({ id, workspace_id: workspaceId }).first(COLUMNS);
    return row ? toSpace(row) : null;
  }

  async update(principal: UserPrincipal, workspaceId: string, id: string, body: PatchSpaceBody): Promise<Space> {
    return inTransaction(this.db, async (trx) => {
      await this.workspaces.hold(trx, workspaceId);
      const patch: Record<string, unknown> = { updated_at: trx.fn.now() };
      if (body.name !== undefined) patch.name = body.name.trim();
      if (body.description !== undefined) patch.description = body.description;
      const [row] = await trx('spaces').where({ id, workspace_id: workspaceId }).update(patch).returning(COLUMNS);
      if (!row) throw notFound();
      const space = toSpace(row);
      await this.events.emit(trx, { name: 'space.updated', workspaceId, actorId: principal.user.id, payload: { space } });
      return space;
    });
  }

  /**
   * Deletes a space; its folders go by cascade. Plugins holding what a foreign key cannot
   * reach clean up in `spaces.lifecycle` `deleting` (databases drop their tables); those
   * referring to it by id alone in `deleted` (grants), and guests' `space_ids` through the
   * workspaces plugin; all inside this transaction.
   */
  async delete(principal: UserPrincipal, workspaceId: string, id: string, inTrx?: Db): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      await this.workspaces.hold(trx, workspaceId);
      const before = await trx('spaces').where({ id, workspace_id: workspaceId }).forUpdate().first(COLUMNS);
      if (!before) throw notFound();
      // Content that a foreign key cannot reach (a database's own table) goes first, while its rows still say where it is.
      await this.lifecycle.deleting.promise({ trx, workspaceId, spaceId: id, actor: principal });
      const [row] = await trx('spaces').where({ id, workspace_id: workspaceId }).delete().returning(COLUMNS);
      await this.workspaces.forgetSpace(trx, workspaceId, id);
      await this.lifecycle.deleted.promise({ trx, workspaceId, spaceId: id, actor: principal });
      await this.events.emit(trx, { name: 'space.deleted', workspaceId, actorId: principal.user.id, payload: { space: toSpace(row) } });
    }, inTrx);
  }
}
