import type { PluginContext } from '../../core/plugin.ts';

/** A person's own filters and sorts on views (overrides): exported, and deleted in the workspace erased from. */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('views', async (sections, { trx, userId, workspaceId }) => {
    const q = trx('view_overrides').where({ user_id: userId }).select('workspace_id', 'view_id', 'filter', 'sorts', 'updated_at');
    if (workspaceId) q.where({ workspace_id: workspaceId });
    return [...sections, { kind: 'view_overrides', items: await q }];
  });
  hooks.erase.tapPromise('views', async (reports, { trx, userId, workspaceId }) => {
    if (!workspaceId) return reports;
    const deleted = await trx('view_overrides').where({ workspace_id: workspaceId, user_id: userId }).del();
    const pseudonymised = await trx('view_publications').where({ workspace_id: workspaceId, published_by: userId }).update({ published_by: null });
    return [...reports, { kind: 'view_overrides', deleted, pseudonymised, retained: [] }];
  });
}
