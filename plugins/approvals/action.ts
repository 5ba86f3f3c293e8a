import { PauseRun, StepFailed, type ActionDefinition } from '../automations/public.ts';
import type { ApprovalService } from './approvals.service.ts';
import { RequestApproval } from './schemas.ts';

const DEFAULT_TIMEOUT_HOURS = 24;

/**
 * `request_approval`: stores an approval, tells its approvers, and pauses the run until one of them decides (or it
 * expires). Not retry-safe: a step interrupted after the approval was stored is not asked again, the run fails.
 */
export function requestApproval(approvals: () => ApprovalService): ActionDefinition<RequestApproval> {
  return {
    type: 'request_approval',
    schema: RequestApproval,
    retrySafe: false,
    check: (req) => approvals().check(req),
    async run(ctx) {
      if (!ctx.runId) throw new StepFailed('request_approval needs a run to pause.');
      const approval = await approvals().request({
        workspaceId: ctx.workspaceId,
        databaseId: ctx.databaseId,
        automationId: ctx.automationId,
        runId: ctx.runId,
        recordId: ctx.trigger.record_id,
        approverIds: ctx.config.approver_ids,
        text: ctx.config.text,
        timeoutHours: ctx.config.timeout_hours ?? DEFAULT_TIMEOUT_HOURS,
      });
      if (!approval) throw new StepFailed('None of the approvers is still a member who can read this database.');
      throw new PauseRun({ approval_id: approval.id, approver_ids: approval.approver_ids, expires_at: approval.expires_at });
    },
    dryRun: async (ctx) => ({ approver_ids: ctx.config.approver_ids, text: ctx.config.text, timeout_hours: ctx.config.timeout_hours ?? DEFAULT_TIMEOUT_HOURS }),
  };
}
