import type { Db } from '../../core/db.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import { notFound } from '../../core/errors.ts';
import { containsPattern } from '../../core/like-pattern.ts';
import type { AdminWorkspace, WorkspaceListQuery } from './schemas.ts';

interface WorkspaceRow {
  id: string;
  name: string;
  created_by: string | null;
  created_at: Date;
  member_count: number;
}

function toAdminWorkspace(row: WorkspaceRow): AdminWorkspace {
  return { id: row.id, name: row.name, created_by: row.created_by, created_at: row.created_at.toISOString(), member_count: Number(row.member_count) };
}

/** Every workspace on the instance, whoever belongs to it. Routes exist only with the workspaces plugin. */
export class AdminWorkspaceService {
  constructor(
    private readonly db: Db,
    private readonly hasWorkspaces: () => boolean,
  ) {}

  private select() {
    // The plugin was on when the routes were registered; it may have failed to migrate or boot since.
    if (!this.hasWorkspaces()) throw notFound('The workspaces plugin is not running.');
    return this.db('workspaces as w').select(
      'w.id',
      'w.name',
      'w.created_by',
      'w.created_at',
      this.db.raw('(SELECT count(*)::int FROM workspace_members m WHERE m.workspace_id = w.id) AS member_count'),
    );
  }

  /** Newest first. */
  async list(query: WorkspaceListQuery): Promise<Page<AdminWorkspace>> {
    const q = this.select();
    if (query.q) q.whereILike('w.name', containsPattern(query.q));
    const page = await keysetPage<WorkspaceRow>(this.db, q, { keys: [{ column: 'w.created_at', type: 'timestamptz' }, { column: 'w.id', type: 'uuid' }], direction: 'desc' }, query);
    return { data: page.data.map(toAdminWorkspace), next_cursor: page.next_cursor };
  }

  async get(id: string): Promise<AdminWorkspace> {
    const row = await this.select().where('w.id', id).first();
    if (!row) throw notFound('No such workspace.');
    return toAdminWorkspace(row);
  }
}
