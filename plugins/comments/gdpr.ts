import type { Knex } from 'knex';
import type { PluginContext } from '../../core/plugin.ts';
import { FORMER_MEMBER } from '../documents/public.ts';

/**
 * A person's comments: exported (ids, records, text); on erasure they stay, for the conversation they are part of,
 * with the author shown as "Former member", and comments mentioning them no longer spell their name.
 */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  const scoped = (q: Knex.QueryBuilder, workspaceId: string | null | undefined) => (workspaceId ? q.where('workspace_id', workspaceId) : q);
  hooks.export.tapPromise('comments', async (sections, { trx, userId, workspaceId }) => {
    const items = await scoped(trx('comments').where('author_id', userId), workspaceId).orderBy('created_at').select('id', 'workspace_id', 'database_id', 'record_id', 'text', 'created_at', 'updated_at');
    return [...sections, { kind: 'comments', items }];
  });
  hooks.erase.tapPromise('comments', async (reports, { trx, userId, workspaceId, person }) => {
    const pseudonymised = (await scoped(trx('comments').where('author_id', userId), workspaceId).update({ author_id: null })) as unknown as number;
    // Comments naming them keep the mention node (an id) but not their name in the plain text.
    await scoped(trx('comments').whereRaw('mentions @> ?::jsonb', [JSON.stringify([userId])]), workspaceId).update({
      text: trx.raw('replace(text, ?, ?)', [`@${person.name}`, `@${FORMER_MEMBER}`]),
    });
    const retained = pseudonymised > 0 ? [{ what: 'comments they wrote, shown as by "Former member"', reason: 'kept for the workspace', until: null }] : [];
    return [...reports, { kind: 'comments', deleted: 0, pseudonymised, retained }];
  });
}
