import type { PluginContext } from '../../core/plugin.ts';
import { CONNECTIONS } from './connections.service.ts';
import type { IntegrationsOptions } from './schemas.ts';

/**
 * Connections and personal data: a connection records who made it and acts with their account at the provider (their
 * token, their OAuth grant). An export lists the connections the person made (never a credential); an erasure deletes
 * them, with their inboxes: the person's account at a provider must not go on acting for the workspace once they are
 * gone. An admin connects the provider again with an account of their own.
 */
export function tapGdpr(ctx: PluginContext<IntegrationsOptions>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('integrations', async (sections, { trx, userId, workspaceId }) => {
    const q = trx(CONNECTIONS).where({ created_by: userId }).orderBy('created_at').select('id', 'workspace_id', 'provider', 'name', 'status', 'account', 'created_at');
    if (workspaceId) q.where({ workspace_id: workspaceId });
    return [...sections, { kind: 'connections', items: await q }];
  });
  hooks.erase.tapPromise('integrations', async (reports, { trx, userId, workspaceId }) => {
    const q = trx(CONNECTIONS).where({ created_by: userId });
    if (workspaceId) q.where({ workspace_id: workspaceId });
    const deleted = (await q.delete()) as unknown as number;
    return [...reports, { kind: 'connections', deleted, pseudonymised: 0, retained: [] }];
  });
}
