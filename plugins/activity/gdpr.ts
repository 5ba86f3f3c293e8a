import type { PluginContext } from '../../core/plugin.ts';
import { TABLE } from './activity.service.ts';

/** Origins that name the person (their session, their token, their restore) rather than an automation or a form. */
const PERSONAL_ORIGINS = ['user', 'token', 'restore'];

/**
 * An erased member's entries keep the change but not the person: no actor, and no origin id naming them or their
 * token. Their export lists the entries they made.
 */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('activity', async (sections, { trx, userId, workspaceId }) => {
    const q = trx(TABLE).where({ actor_id: userId }).orderBy('created_at').select('id', 'type', 'workspace_id', 'database_id', 'record_id', 'changes', 'origin', 'created_at');
    if (workspaceId) q.where({ workspace_id: workspaceId });
    return [...sections, { kind: 'activity', items: await q }];
  });
  hooks.erase.tapPromise('activity', async (reports, { trx, userId, workspaceId }) => {
    if (!workspaceId) return reports;
    const pseudonymised = await trx(TABLE)
      .where({ workspace_id: workspaceId })
      .where((w) => w.where({ actor_id: userId }).orWhereRaw("origin->>'id' = ?", [userId]))
      .update({
        actor_id: null,
        origin: trx.raw(`CASE WHEN actor_id = ? AND origin->>'type' = ANY(?) OR origin->>'id' = ? THEN jsonb_set(origin, '{id}', 'null') ELSE origin END`, [userId, PERSONAL_ORIGINS, userId]),
      });
    // User cells are kept as bare ids (capture.ts): a cell that named them names nobody now.
    const cells = await trx(TABLE)
      .where({ workspace_id: workspaceId })
      .whereRaw('changes::text LIKE ?', [`%"${userId}"%`])
      .update({ changes: trx.raw('replace(changes::text, ?, ?)::jsonb', [`"${userId}"`, 'null']) });
    return [
      ...reports,
      { kind: 'activity', deleted: 0, pseudonymised: pseudonymised + cells, retained: [{ what: 'activity entries, without who made them', reason: 'the workspace trail of changes', until: null }] },
    ];
  });
}
