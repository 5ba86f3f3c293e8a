import type { PluginContext } from '../../core/plugin.ts';
import type { WebhooksOptions } from './schemas.ts';

/**
 * Webhooks and personal data: a webhook records who created it, nothing else about anyone. An export lists the
 * webhooks the person created (never a secret); an erasure keeps the webhooks (they are the workspace's) and forgets
 * who created them. What the deliveries carried went to the workspace's own receivers.
 */
export function tapGdpr(ctx: PluginContext<WebhooksOptions>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('webhooks', async (sections, { trx, userId, workspaceId }) => {
    const q = trx('webhooks').where({ created_by: userId }).orderBy('created_at').select('id', 'workspace_id', 'url', 'events', 'database_id', 'enabled', 'created_at');
    if (workspaceId) q.where({ workspace_id: workspaceId });
    return [...sections, { kind: 'webhooks', items: await q }];
  });
  hooks.erase.tapPromise('webhooks', async (reports, { trx, userId, workspaceId }) => {
    const q = trx('webhooks').where({ created_by: userId });
    if (workspaceId) q.where({ workspace_id: workspaceId });
    const pseudonymised = (await q.update({ created_by: null })) as unknown as number;
    return [...reports, { kind: 'webhooks', deleted: 0, pseudonymised, retained: [] }];
  });
}
