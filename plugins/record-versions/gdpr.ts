import type { PluginContext } from '../../core/plugin.ts';
import { BATCHES, TABLE } from './versions.service.ts';

/** Origins that name the person (their session, their token, their restore) rather than an automation or a form. */
const PERSONAL_ORIGINS = ['user', 'token', 'restore'];

/** An erased member's versions keep the cells but not the person; their export lists the versions they wrote (ids only). */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('record-versions', async (sections, { trx, userId, workspaceId }) => {
    const q = trx(TABLE).where({ created_by: userId }).orderBy('created_at').select('workspace_id', 'database_id', 'record_id', trx.raw('seq AS version'), 'created_at');
    if (workspaceId) q.where({ workspace_id: workspaceId });
    // The first versions of records a batch of theirs created (an import), one item per record as if each had its row.
    const firsts = trx(BATCHES).where({ created_by: userId }).orderBy('created_at').select('workspace_id', 'database_id', trx.raw('unnest(record_ids) AS record_id'), trx.raw('1 AS version'), 'created_at');
    if (workspaceId) firsts.where({ workspace_id: workspaceId });
    const [own, batched] = [await q, await firsts];
    return [...sections, { kind: 'record_versions', items: [...own, ...batched] }];
  });
  hooks.erase.tapPromise('record-versions', async (reports, { trx, userId, workspaceId }) => {
    if (!workspaceId) return reports;
    let pseudonymised = 0;
    // Versions and the batches holding first versions keep who wrote them and user cells alike.
    for (const [table, cellsColumn] of [[TABLE, 'values'], [BATCHES, 'cells']] as const) {
      pseudonymised += await trx(table)
        .where({ workspace_id: workspaceId })
        .where((w) => w.where({ created_by: userId }).orWhereRaw("origin->>'id' = ?", [userId]))
        .update({
          created_by: null,
          origin: trx.raw(`CASE WHEN created_by = ? AND origin->>'type' = ANY(?) OR origin->>'id' = ? THEN jsonb_set(origin, '{id}', 'null') ELSE origin END`, [userId, PERSONAL_ORIGINS, userId]),
        });
      // User cells are kept as bare ids (cells.ts): a cell that named them names nobody now.
      pseudonymised += await trx(table)
        .where({ workspace_id: workspaceId })
        .whereRaw('??::text LIKE ?', [cellsColumn, `%"${userId}"%`])
        .update({ [cellsColumn]: trx.raw('replace(??::text, ?, ?)::jsonb', [cellsColumn, `"${userId}"`, 'null']) });
    }
    return [
      ...reports,
      { kind: 'record_versions', deleted: 0, pseudonymised, retained: [{ what: 'record versions, without who wrote them', reason: 'the history records are restored from', until: null }] },
    ];
  });
}
