import type { Knex } from 'knex';
import type { PluginContext } from '../../core/plugin.ts';
import { FORMER_MEMBER } from './former-member.ts';

const KEPT = 'kept for the workspace';

/**
 * A person's documents and descriptions: the export lists those they created or wrote last (ids, titles); an
 * erasure keeps the text, which belongs to the workspace, and forgets who wrote it.
 */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('documents', async (sections, { trx, userId, workspaceId }) => {
    const documents = trx('documents')
      .where((w) => w.where('created_by', userId).orWhere('updated_by', userId))
      .select('id', 'workspace_id', 'space_id', 'title', 'created_by', 'updated_by', 'created_at', 'updated_at');
    const descriptions = trx('document_descriptions').where('updated_by', userId).select('workspace_id', 'database_id', 'record_id', 'version', 'updated_at');
    if (workspaceId) {
      documents.where('workspace_id', workspaceId);
      descriptions.where('workspace_id', workspaceId);
    }
    const created = (rows: Array<Record<string, unknown>>) =>
      rows.map(({ created_by, updated_by, ...row }) => ({ ...row, created_by_you: created_by === userId, last_written_by_you: updated_by === userId }));
    return [...sections, { kind: 'documents', items: created(await documents) }, { kind: 'record_descriptions', items: await descriptions }];
  });
  hooks.erase.tapPromise('documents', async (reports, { trx, userId, workspaceId, person }) => {
    const scoped = (q: Knex.QueryBuilder) => (workspaceId ? q.where('workspace_id', workspaceId) : q);
    const created = await scoped(trx('documents').where({ created_by: userId })).update({ created_by: null }) as unknown as number;
    const updated = await scoped(trx('documents').where({ updated_by: userId })).update({ updated_by: null }) as unknown as number;
    const described = await scoped(trx('document_descriptions').where({ updated_by: userId })).update({ updated_by: null }) as unknown as number;
    // Text mentioning them keeps the mention node (an id) but not their name in the plain text.
    const unnamed = { text: trx.raw('replace(text, ?, ?)', [`@${person.name}`, `@${FORMER_MEMBER}`]) };
    const naming = (q: Knex.QueryBuilder) => scoped(q.whereRaw('content::text LIKE ?', [`%${userId}%`]));
    await naming(trx('documents')).update(unnamed);
    await naming(trx('document_descriptions')).update(unnamed);
    const pseudonymised = created + updated + described;
    return [...reports, { kind: 'documents', deleted: 0, pseudonymised, retained: pseudonymised > 0 ? [{ what: 'documents and record descriptions they wrote, without their name', reason: KEPT, until: null }] : [] }];
  });
}
