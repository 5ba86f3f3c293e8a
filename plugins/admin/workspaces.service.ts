import type { Page } from '../../core/pagination.ts';
import { notFound } from '../../core/errors.ts';
import type { WorkspaceService, WorkspaceSummary } from '../workspaces/public.ts';
import type { AdminWorkspace, WorkspaceListQuery } from './schemas.ts';

function toAdminWorkspace(row: WorkspaceSummary): AdminWorkspace {
  return { id: row.id, name: row.name, created_by: row.created_by, created_at: row.created_at.toISOString(), member_count: Number(row.member_count) };
}

/** Every workspace on the instance, whoever belongs to it. Routes exist only with the workspaces plugin. */
export class AdminWorkspaceService {
  constructor(private readonly workspaces: () => WorkspaceService | null) {}

  private service(): WorkspaceService {
    // The plugin was on when the routes were registered; it may have failed to migrate or boot since.
    const service = this.workspaces();
    if (!service) throw notFound('The workspaces plugin is not running.');
    return service;
  }

  /** Newest first. */
  async list(query: WorkspaceListQuery): Promise<Page<AdminWorkspace>> {
    const page = await this.service().listAll({ q: query.q }, query);
    return { data: page.data.map(toAdminWorkspace), next_cursor: page.next_cursor };
  }

  async get(id: string): Promise<AdminWorkspace> {
    const row = await this.service().summaryOf(id);
    if (!row) throw notFound('No such workspace.');
    return toAdminWorkspace(row);
  }
}
