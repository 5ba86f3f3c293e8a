import type { PluginContext } from '../../core/plugin.ts';
import type { ImportOptions } from './schemas.ts';

/**
 * The imports a person sent: exported (ids, database, state, counts, times); on erasure their run rows are deleted
 * (a row names who sent the file, and whose rights a queued job uses), and a file still waiting goes with its row.
 * The records they imported are the records plugin's to answer for.
 */
export function tapGdpr(ctx: PluginContext<ImportOptions>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('import', async (sections, { trx, userId, workspaceId }) => {
    const items = await ctx.resolve('import.runs').runsOf(trx, userId, workspaceId ?? null);
    return [...sections, { kind: 'imports', items }];
  });
  hooks.erase.tapPromise('import', async (reports, { trx, userId, workspaceId }) => {
    const deleted = await ctx.resolve('import.runs').forgetUser(trx, userId, workspaceId);
    return [...reports, { kind: 'imports', deleted, pseudonymised: 0, retained: [] }];
  });
}
