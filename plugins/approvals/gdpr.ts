import type { PluginContext } from '../../core/plugin.ts';
import { APPROVALS } from './approvals.service.ts';

const EXPORTED = ['id', 'workspace_id', 'run_id', 'automation_id', 'record_id', 'text', 'approver_ids', 'status', 'decided_by', 'decided_at', 'comment', 'created_at'];

/**
 * The approvals a person was asked for or decided are exported. Erasure takes the person off the approvers (they can
 * no longer decide) and off the decisions (`decided_by` null); the approvals stay with their runs.
 */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  const theirs = (userId: string) => (q: any) => q.whereRaw('approver_ids @> ?::jsonb', [JSON.stringify([userId])]).orWhere({ decided_by: userId });
  hooks.export.tapPromise('approvals', async (sections, { trx, userId, workspaceId }) => {
    const q = trx(APPROVALS).where(theirs(userId)).select(EXPORTED).orderBy('created_at');
    if (workspaceId) q.andWhere({ workspace_id: workspaceId });
    return [...sections, { kind: 'approvals', items: await q }];
  });
  hooks.erase.tapPromise('approvals', async (reports, { trx, userId, workspaceId }) => {
    if (!workspaceId) return reports;
    const inWorkspace = { workspace_id: workspaceId };
    const removed = await trx(APPROVALS).where(inWorkspace).whereRaw('approver_ids @> ?::jsonb', [JSON.stringify([userId])]).update({ approver_ids: trx.raw('approver_ids - ?::text', [userId]) });
    const undecided = await trx(APPROVALS).where({ ...inWorkspace, decided_by: userId }).update({ decided_by: null });
    return [
      ...reports,
      {
        kind: 'approvals',
        deleted: 0,
        pseudonymised: removed + undecided,
        retained: [{ what: 'approvals the person was asked for or decided, without the person', reason: 'They record how automation runs went.', until: null }],
      },
    ];
  });
}
