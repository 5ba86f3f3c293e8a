import type { Knex } from 'knex';
import type { PluginContext } from '../../core/plugin.ts';
import type { FileService } from './files.service.ts';
import type { FileUses } from './uses.service.ts';

/**
 * A member's uploads: exported with their bytes; on erasure, those no document shows are deleted (their bytes after
 * commit), those a document still shows stay for it, no longer attributed to anyone.
 */
export function tapGdpr(ctx: PluginContext<unknown>, deps: { files: () => FileService; uses: () => FileUses }): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  const scoped = (q: Knex.QueryBuilder, workspaceId: string | null | undefined) => (workspaceId ? q.where('workspace_id', workspaceId) : q);

  hooks.export.tapPromise('files', async (sections, { trx, userId, workspaceId }) => {
    const rows = await deps.files().uploadedBy(trx, userId, workspaceId);
    return [...sections, { kind: 'files', items: rows.map((r) => r.file), files: rows.map((r) => ({ path: `${r.file.id}-${r.file.name}`, blobKey: r.blobKey })) }];
  });

  hooks.erase.tapPromise('files', async (reports, { trx, userId, workspaceId }) => {
    const live = await deps.files().uploadedBy(trx, userId, workspaceId);
    const shown = await deps.uses().used(trx, live.map((r) => r.file.id));
    const gone = live.filter((r) => !shown.has(r.file.id));
    await deps.files().erase(trx, gone.map((r) => r.file.id));
    // The kept ones, and revoked files' rows (their bytes already gone), forget who uploaded them.
    const pseudonymised = (await scoped(trx('files').where({ created_by: userId }), workspaceId).update({ created_by: null })) as unknown as number;
    const retained = shown.size > 0 ? [{ what: `${shown.size} image(s) they uploaded that documents still show, no longer attributed to them`, reason: 'shown in documents of the workspace', until: null }] : [];
    return [...reports, { kind: 'files', deleted: gone.length, pseudonymised, retained }];
  });
}
