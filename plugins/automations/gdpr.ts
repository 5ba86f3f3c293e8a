import type { PluginContext } from '../../core/plugin.ts';
import { TABLE } from './automations.service.ts';
import { RUNS } from './runs.service.ts';

/**
 * Automations and personal data. An automation records who created it; a run records who started it (the person
 * whose write triggered it, `trigger.started_by`) and carries values that may name people by id (a user cell in the
 * trigger's before and after, a step's output). An export lists the automations the person created and the runs they
 * started; an erasure keeps both (they are the workspace's) and forgets the person: `created_by` → null (their
 * automations stop running, as for a creator who left), and every occurrence of their id in runs → null.
 */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('automations', async (sections, { trx, userId, workspaceId }) => {
    const automations = trx(TABLE).where({ created_by: userId }).orderBy('created_at').select('id', 'workspace_id', 'database_id', 'name', 'enabled', 'created_at');
    const runs = trx(RUNS).whereRaw("trigger->>'started_by' = ?", [userId]).orderBy('created_at').select('id', 'workspace_id', 'automation_id', 'status', 'created_at', 'finished_at');
    if (workspaceId) {
      automations.where({ workspace_id: workspaceId });
      runs.where({ workspace_id: workspaceId });
    }
    return [...sections, { kind: 'automations', items: await automations }, { kind: 'automation_runs', items: await runs }];
  });
  hooks.erase.tapPromise('automations', async (reports, { trx, userId, workspaceId }) => {
    if (!workspaceId) return reports;
    const automations = await trx(TABLE).where({ workspace_id: workspaceId, created_by: userId }).update({ created_by: null });
    // Ids are stored bare (user cells, started_by): a value that was their id is null now, a key naming them is
    // emptied rather than nulled (that would not be JSON), and their id inside a text is cut out of it.
    const scrub = (column: string) => trx.raw(`replace(replace(replace(??::text, ?, '"":'), ?, 'null'), ?, '')::jsonb`, [column, `"${userId}":`, `"${userId}"`, userId]);
    const runs = await trx(RUNS)
      .where({ workspace_id: workspaceId })
      .where((w) => w.whereRaw('trigger::text LIKE ?', [`%${userId}%`]).orWhereRaw('steps::text LIKE ?', [`%${userId}%`]))
      .update({ trigger: scrub('trigger'), steps: scrub('steps') });
    return [
      ...reports,
      { kind: 'automations', deleted: 0, pseudonymised: automations + runs, retained: [{ what: 'automations and their runs, without who made or started them', reason: 'the workspace’s own rules and their history', until: null }] },
    ];
  });
}
