import { countRows, inTransaction, type Db, type Trx } from '../../core/db.ts';
import type { WorkspaceLifecycle } from './hooks.ts';
import type { EventBus } from '../../core/events.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { Role } from '../../core/roles.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import { notFound } from '../../core/errors.ts';
import { containsPattern } from '../../core/like-pattern.ts';
import type { CreateWorkspaceBody, PatchWorkspaceBody, Workspace } from './schemas.ts';

interface WorkspaceRow {
  id: string;
  name: string;
  description: string | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export function toWorkspace(row: WorkspaceRow, role: Role): Workspace {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    role,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const COLUMNS = ['w.id', 'w.name', 'w.description', 'w.created_by', 'w.created_at', 'w.updated_at'];

/** A workspace as the instance's administration sees it, whoever belongs to it. */
export interface WorkspaceSummary {
  id: string;
  name: string;
  created_by: string | null;
  created_at: Date;
  member_count: number;
}

/** Workspaces: the tenant boundary. Everything in one goes when it goes. */
export class WorkspaceService {
  constructor(
    private readonly db: Db,
    private readonly lifecycle: WorkspaceLifecycle,
    private readonly events: EventBus,
  ) {}

  async create(principal: UserPrincipal, body: CreateWorkspaceBody): Promise<Workspace> {
    return inTransaction(this.db, async (trx) => {
      const [row] = await trx('workspaces')
        .insert({ name: body.name.trim(), description: body.description ?? null, created_by: principal.user.id })
        .returning(['id', 'name', 'description', 'created_by', 'created_at', 'updated_at']);
      await trx('workspace_members').insert({ workspace_id: row.id, user_id: principal.user.id, role: 'admin' });
      await this.events.emit(trx, { name: 'workspace.created', workspaceId: row.id, actorId: principal.user.id, payload: { workspace: toWorkspace(row, 'admin') } });
      return toWorkspace(row, 'admin');
    });
  }

  /** The caller's workspaces, oldest membership first. A token sees only its own workspace. */
  async listMine(principal: UserPrincipal, page: { limit?: number; cursor?: string }): Promise<Page<Workspace>> {
    const q = this.db('workspace_members as m')
      .join('workspaces as w', 'w.id', 'm.workspace_id')
      .where('m.user_id', principal.user.id)
      .select([...COLUMNS, 'm.role', this.db.raw('m.created_at as joined_at')]);
    if (principal.kind === 'pat') q.where('m.workspace_id', principal.workspaceId);
    const result = await keysetPage<WorkspaceRow & { role: Role }>(this.db, q, { keys: [{ column: 'm.created_at', type: 'timestamptz' }, { column: 'm.workspace_id', type: 'uuid' }], direction: 'asc' }, page);
    return { data: result.data.map((row) => toWorkspace(row, row.role)), next_cursor: result.next_cursor };
  }

  /**
   * Holds the workspace row (FOR KEY SHARE: renames are not held up) until commit, or 404 when
   * it is gone. Writers into a workspace take it first, as its deletion does, so a concurrent
   * deletion waits for the write (then deletes what it wrote) instead of deadlocking with it
   * or failing it on a foreign key.
   */
  async hold(trx: Db, workspaceId: string, missing?: string): Promise<{ id: string; name: string }> {
    const workspace = await trx('workspaces').where({ id: workspaceId }).forKeyShare().first('id', 'name');
    if (!workspace) throw notFound(missing);
    return workspace;
  }

  async get(workspaceId: string, role: Role): Promise<Workspace> {
    const row = await this.db('workspaces as w').where('w.id', workspaceId).first(COLUMNS);
    if (!row) throw notFound();
    return toWorkspace(row, role);
  }

  async update(principal: UserPrincipal, workspaceId: string, role: Role, body: PatchWorkspaceBody): Promise<Workspace> {
    return inTransaction(this.db, async (trx) => {
      const patch: Record<string, unknown> = { updated_at: trx.fn.now() };
      if (body.name !== undefined) patch.name = body.name.trim();
      if (body.description !== undefined) patch.description = body.description;
      const [row] = await trx('workspaces').where({ id: workspaceId }).update(patch).returning(['id', 'name', 'description', 'created_by', 'created_at', 'updated_at']);
      if (!row) throw notFound();
      const workspace = toWorkspace(row, role);
      await this.events.emit(trx, { name: 'workspace.updated', workspaceId, actorId: principal.user.id, payload: { workspace } });
      return workspace;
    });
  }

  /**
   * Deletes the workspace and, by cascade, everything in it. Plugins holding what a
   * foreign key cannot reach (per-database tables, blobs) clean up in `workspaces.lifecycle`
   * `deleting`, inside this transaction.
   */
  async delete(principal: UserPrincipal, workspaceId: string): Promise<void> {
    await inTransaction(this.db, async (trx: Trx) => {
      // Holding the row makes concurrent writers that reference it wait, then fail on the foreign key.
      const row = await trx('workspaces').where({ id: workspaceId }).forUpdate().first();
      if (!row) throw notFound();
      await this.lifecycle.deleting.promise({ trx, workspaceId, actor: principal });
      await trx('workspaces').where({ id: workspaceId }).delete();
      await this.events.emit(trx, { name: 'workspace.deleted', workspaceId, actorId: principal.user.id, payload: { workspace_id: workspaceId } });
    });
  }

  /** Every workspace of the instance, newest first: `q` a case-insensitive substring of the name. */
  async listAll(filter: { q?: string }, page: { limit?: number; cursor?: string }): Promise<Page<WorkspaceSummary>> {
    const q = this.summaries();
    if (filter.q) q.whereILike('w.name', containsPattern(filter.q));
    return keysetPage<WorkspaceSummary>(this.db, q, { keys: [{ column: 'w.created_at', type: 'timestamptz' }, { column: 'w.id', type: 'uuid' }], direction: 'desc' }, page);
  }

  async summaryOf(workspaceId: string): Promise<WorkspaceSummary | undefined> {
    return this.summaries().where('w.id', workspaceId).first();
  }

  /** Workspaces on the whole instance. */
  count(): Promise<number> {
    return countRows(this.db('workspaces'));
  }

  private summaries() {
    return this.db('workspaces as w').select(
      'w.id',
      'w.name',
      'w.created_by',
      'w.created_at',
      this.db.raw('(SELECT count(*)::int FROM workspace_members m WHERE m.workspace_id = w.id) AS member_count'),
    );
  }

  /** A space being deleted: no guest and no pending invite points at it any more (called by the spaces plugin, in its transaction). */
  async forgetSpace(trx: Db, workspaceId: string, spaceId: string): Promise<void> {
    await trx('workspace_members').where({ workspace_id: workspaceId }).whereRaw('? = ANY(space_ids)', [spaceId]).update({ space_ids: trx.raw('array_remove(space_ids, ?::uuid)', [spaceId]) });
    await trx('workspace_invites').where({ workspace_id: workspaceId }).whereRaw('? = ANY(space_ids)', [spaceId]).update({ space_ids: trx.raw('array_remove(space_ids, ?::uuid)', [spaceId]) });
  }
}
