import type { PluginContext } from '../../core/plugin.ts';

const EXPORTED = ['workspace_id', 'type', 'subject_type', 'subject_id', 'subject_title', 'record_id', 'database_id', 'data', 'read_at', 'archived_at', 'created_at'];

/**
 * A person's notifications are theirs: exported, and deleted with their pending mail in the workspace erased from (in
 * every workspace when the account itself is erased). Notifications others received about what the person did stay,
 * without the person (`actor` null).
 */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('notifications', async (sections, { trx, userId, workspaceId }) => {
    const q = trx('notifications').where({ user_id: userId }).select(EXPORTED).orderBy('created_at');
    if (workspaceId) q.where({ workspace_id: workspaceId });
    return [...sections, { kind: 'notifications', items: await q }];
  });
  hooks.erase.tapPromise('notifications', async (reports, { trx, userId, workspaceId }) => {
    // The account-wide part (its account deleted): every workspace's, the tables keeping no foreign key to the account.
    const inWorkspace = workspaceId ? { workspace_id: workspaceId } : {};
    const deleted = (await trx('notifications').where({ ...inWorkspace, user_id: userId }).delete()) + (await trx('notifications_emails').where({ ...inWorkspace, user_id: userId }).delete());
    const pseudonymised =
      (await trx('notifications').where({ ...inWorkspace, actor_id: userId }).update({ actor_id: null })) +
      (await trx('notifications_emails').where({ ...inWorkspace, actor_id: userId }).update({ actor_id: null }));
    return [...reports, { kind: 'notifications', deleted, pseudonymised, retained: [] }];
  });
}
