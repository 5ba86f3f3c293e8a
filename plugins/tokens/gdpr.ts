import type { PluginContext } from '../../core/plugin.ts';

const TABLE = 'personal_access_tokens';

/** A person's tokens: listed (never their secret) in exports, deleted by erasure, per workspace or all. */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('tokens', async (sections, { trx, userId, workspaceId }) => {
    const q = trx(TABLE).where({ user_id: userId }).select('id', 'workspace_id', 'name', 'scope', 'prefix', 'created_at', 'last_used_at', 'expires_at');
    if (workspaceId) q.where({ workspace_id: workspaceId });
    return [...sections, { kind: 'tokens', items: await q }];
  });
  hooks.erase.tapPromise('tokens', async (reports, { trx, userId, workspaceId }) => {
    const q = trx(TABLE).where({ user_id: userId });
    if (workspaceId) q.where({ workspace_id: workspaceId });
    return [...reports, { kind: 'tokens', deleted: await q.del(), pseudonymised: 0, retained: [] }];
  });
}
