import type { PluginContext } from '../../core/plugin.ts';
import type { BillingOptions } from './schemas.ts';

/**
 * Billing keeps one thing about a person: who spent AI credits (an agent run's starter) on the ledger. An export lists
 * those entries; an erasure keeps them (the workspace's accounts must still add up) without the person.
 */
export function tapGdpr(ctx: PluginContext<BillingOptions>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('billing', async (sections, { trx, userId, workspaceId }) => {
    const q = trx('billing_credit_ledger').where({ user_id: userId }).orderBy('created_at').select('id', 'workspace_id', 'amount', 'reason', 'detail', 'ref', 'created_at');
    if (workspaceId) q.where({ workspace_id: workspaceId });
    return [...sections, { kind: 'billing_credit_debits', items: await q }];
  });
  hooks.erase.tapPromise('billing', async (reports, { trx, userId, workspaceId }) => {
    const q = trx('billing_credit_ledger').where({ user_id: userId });
    if (workspaceId) q.where({ workspace_id: workspaceId });
    const pseudonymised = (await q.update({ user_id: null })) as unknown as number;
    return [...reports, { kind: 'billing_credit_debits', deleted: 0, pseudonymised, retained: [] }];
  });
}
