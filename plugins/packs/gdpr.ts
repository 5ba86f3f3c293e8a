import type { PluginContext } from '../../core/plugin.ts';

/**
 * Who installed or published a pack is the only personal data here: exported, and forgotten (the install and the
 * publication stay, as the workspace's) in the workspace erased from, or everywhere.
 */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('packs', async (sections, { trx, userId, workspaceId }) => {
    const installs = trx('pack_installs').where({ installed_by: userId }).select('id', 'workspace_id', 'name', 'version', 'source_type', 'created_at');
    const published = trx('marketplace_packs').where({ published_by: userId }).select('id', 'workspace_id', 'name', 'version', 'created_at');
    if (workspaceId) {
      installs.where({ workspace_id: workspaceId });
      published.where({ workspace_id: workspaceId });
    }
    return [...sections, { kind: 'pack_installs', items: await installs }, { kind: 'pack_publications', items: await published }];
  });
  hooks.erase.tapPromise('packs', async (reports, { trx, userId, workspaceId }) => {
    const installs = trx('pack_installs').where({ installed_by: userId });
    const published = trx('marketplace_packs').where({ published_by: userId });
    if (workspaceId) {
      installs.where({ workspace_id: workspaceId });
      published.where({ workspace_id: workspaceId });
    }
    const pseudonymised = (await installs.update({ installed_by: null })) + (await published.update({ published_by: null }));
    return [
      ...reports,
      {
        kind: 'packs',
        deleted: 0,
        pseudonymised,
        retained: pseudonymised > 0 ? [{ what: 'installs and publications the person made, without who made them', reason: "they are the workspace's", until: null }] : [],
      },
    ];
  });
}
