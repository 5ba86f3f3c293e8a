import type { PluginContext } from '../../core/plugin.ts';

/**
 * Memberships and invites in `gdpr.personalData`. The member is removed last in the workspace (stage 100),
 * through the plugin's own removal, so `memberRemoved` still runs for the plugins listening to it and the last
 * admin is refused (409 `last_admin`), undoing what the other taps did in that workspace.
 */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.memberships.tapPromise('workspaces', async (ids, { trx, userId }) => [...ids, ...(await trx('workspace_members').where({ user_id: userId }).orderBy('workspace_id').pluck('workspace_id'))]);
  hooks.export.tapPromise('workspaces', async (sections, { trx, userId, person, workspaceId }) => {
    const members = trx('workspace_members as m').join('workspaces as w', 'w.id', 'm.workspace_id').where({ 'm.user_id': userId }).select('w.id as workspace_id', 'w.name as workspace', 'm.role', 'm.space_ids', 'm.created_at as joined_at');
    const invites = trx('workspace_invites').whereRaw('lower(email) = lower(?)', [person.email]).select('workspace_id', 'email', 'role', 'status', 'created_at', 'accepted_at');
    if (workspaceId) {
      members.where({ 'm.workspace_id': workspaceId });
      invites.where({ workspace_id: workspaceId });
    }
    return [...sections, { kind: 'memberships', items: await members }, { kind: 'invites', items: await invites }];
  });
  hooks.erase.tapPromise({ name: 'workspaces', stage: 100 }, async (reports, { trx, userId, person, workspaceId, actor }) => {
    const invites = trx('workspace_invites').whereRaw('lower(email) = lower(?)', [person.email]);
    if (!workspaceId) return [...reports, { kind: 'invites', deleted: await invites.del(), pseudonymised: 0, retained: [] }];
    const deleted = await invites.where({ workspace_id: workspaceId }).del();
    const pseudonymised =
      (await trx('workspaces').where({ id: workspaceId, created_by: userId }).update({ created_by: null })) +
      (await trx('workspace_invites').where({ workspace_id: workspaceId, invited_by: userId }).update({ invited_by: null })) +
      (await trx('workspace_invites').where({ workspace_id: workspaceId, accepted_by: userId }).update({ accepted_by: null }));
    await ctx.resolve('workspaces.members').remove(actor, workspaceId, userId, trx);
    return [...reports, { kind: 'invites', deleted, pseudonymised, retained: [] }, { kind: 'membership', deleted: 1, pseudonymised: 0, retained: [] }];
  });
}
