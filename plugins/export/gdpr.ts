import type { PluginContext } from '../../core/plugin.ts';
import type { ExportOptions } from './schemas.ts';

/**
 * Workspace exports and personal data: an export lists those the person asked for; a zip holds the workspace's
 * records, so it may name the person (user cells, who created a record), and an erasure from a workspace deletes that
 * workspace's exports with their zips rather than leave a copy that still names them.
 */
export function tapGdpr(ctx: PluginContext<ExportOptions>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('export', async (sections, { trx, userId, workspaceId }) => {
    const q = trx('export_workspace_exports').where({ requested_by: userId }).orderBy('created_at').select('id', 'workspace_id', 'status', 'created_at', 'finished_at');
    if (workspaceId) q.where({ workspace_id: workspaceId });
    return [...sections, { kind: 'workspace_exports', items: await q }];
  });
  hooks.erase.tapPromise('export', async (reports, { trx, workspaceId }) => {
    if (!workspaceId) return reports;
    const deleted = await ctx.resolve('export.workspaces').forgetWorkspace(trx, workspaceId);
    return [...reports, { kind: 'workspace_exports', deleted, pseudonymised: 0, retained: [] }];
  });
}
