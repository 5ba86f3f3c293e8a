import type { Knex } from 'knex';
import type { PluginContext } from '../../core/plugin.ts';

/** Mentions of a person go on erasure; those they made stay, without their name. Both are exported. */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  const scoped = (q: Knex.QueryBuilder, workspaceId: string | null | undefined) => (workspaceId ? q.where('workspace_id', workspaceId) : q);
  const COLUMNS = ['id', 'workspace_id', 'source_type', 'source_id', 'record_id', 'database_id', 'document_id', 'created_at'];
  hooks.export.tapPromise('mentions', async (sections, { trx, userId, workspaceId }) => {
    const of = await scoped(trx('mentions').where('user_id', userId), workspaceId).orderBy('created_at').select(COLUMNS);
    const by = await scoped(trx('mentions').where('mentioned_by', userId), workspaceId).orderBy('created_at').select([...COLUMNS, 'user_id']);
    return [...sections, { kind: 'mentions_of_you', items: of }, { kind: 'mentions_by_you', items: by }];
  });
  hooks.erase.tapPromise('mentions', async (reports, { trx, userId, workspaceId }) => {
    const deleted = (await scoped(trx('mentions').where('user_id', userId), workspaceId).delete()) as unknown as number;
    const pseudonymised = (await scoped(trx('mentions').where('mentioned_by', userId), workspaceId).update({ mentioned_by: null })) as unknown as number;
    const retained = pseudonymised > 0 ? [{ what: 'mentions they made of others, without their name', reason: 'kept for the workspace', until: null }] : [];
    return [...reports, { kind: 'mentions', deleted, pseudonymised, retained }];
  });
}
