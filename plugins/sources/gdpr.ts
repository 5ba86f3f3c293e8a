import type { PluginContext } from '../../core/plugin.ts';
import type { SourcesOptions } from './schemas.ts';
import type { SourceRow } from './store.ts';
import { SOURCES } from './store.ts';

/**
 * Sources and personal data: a source records who made it, and its runs write as that person. An export lists the
 * sources the person made; an erasure deletes them (their databases stay, the fields ordinary ones), since nothing may go
 * on writing as someone who is gone. An admin makes the source again as themselves.
 */
export function tapGdpr(ctx: PluginContext<SourcesOptions>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('sources', async (sections, { trx, userId, workspaceId }) => {
    const q = trx(SOURCES).where({ created_by: userId }).orderBy('created_at').select('id', 'workspace_id', 'database_id', 'kind', 'name', 'schedule', 'created_at');
    if (workspaceId) q.where({ workspace_id: workspaceId });
    return [...sections, { kind: 'sources', items: await q }];
  });
  hooks.erase.tapPromise('sources', async (reports, { trx, userId, workspaceId }) => {
    const q = trx(SOURCES).where({ created_by: userId }).forUpdate().select('id', 'database_id', 'fields');
    if (workspaceId) q.where({ workspace_id: workspaceId });
    const made = (await q) as Array<Pick<SourceRow, 'id' | 'database_id' | 'fields'>>;
    const managed = ctx.resolve('databases.managedFields');
    for (const source of made) {
      const live = await managed.byIds(trx, Object.values(source.fields));
      await managed.setSynced(trx, source.database_id, [...live.keys()], false);
    }
    const deleted = made.length > 0 ? ((await trx(SOURCES).whereIn('id', made.map((s) => s.id)).delete()) as unknown as number) : 0;
    return [...reports, { kind: 'sources', deleted, pseudonymised: 0, retained: [] }];
  });
}
