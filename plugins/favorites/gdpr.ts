import type { PluginContext } from '../../core/plugin.ts';

/** A person's favorites: exported, and deleted in the workspace erased from. */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('favorites', async (sections, { trx, userId, workspaceId }) => {
    const q = trx('favorites').where({ user_id: userId }).select('workspace_id', 'target_type', 'target_id', 'database_id', 'created_at');
    if (workspaceId) q.where({ workspace_id: workspaceId });
    return [...sections, { kind: 'favorites', items: await q }];
  });
  hooks.erase.tapPromise('favorites', async (reports, { trx, userId, workspaceId }) => {
    if (!workspaceId) return reports;
    const deleted = await trx('favorites').where({ workspace_id: workspaceId, user_id: userId }).del();
    return [...reports, { kind: 'favorites', deleted, pseudonymised: 0, retained: [] }];
  });
}
