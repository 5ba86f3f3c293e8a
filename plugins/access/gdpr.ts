import type { PluginContext } from '../../core/plugin.ts';

/** A person's grants: exported, and revoked (with their `access.revoked` events) in the workspace erased from. */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('access', async (sections, { trx, userId, workspaceId }) => {
    const q = trx('access_grants').where({ user_id: userId }).select('workspace_id', 'scope_type', 'scope_id', 'role', 'created_at');
    if (workspaceId) q.where({ workspace_id: workspaceId });
    return [...sections, { kind: 'grants', items: await q }];
  });
  hooks.erase.tapPromise('access', async (reports, { trx, userId, workspaceId, actor }) => {
    if (!workspaceId) return reports;
    const deleted = await ctx.resolve('access.grants').revokeUser(trx, actor, workspaceId, userId);
    return [...reports, { kind: 'grants', deleted, pseudonymised: 0, retained: [] }];
  });
}
