import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { ApprovalErrors } from './errors.ts';
import { Approval, ApprovalList, ApprovalParams, DecideBody, ListQuery, WorkspaceParams } from './schemas.ts';

const tags = ['approvals'];
const A = '/workspaces/{ws}/approvals';
/** Whoever reads the approval's database gets past the door; who may see or decide it is the service's answer. */
const readsIt = { role: 'guest' as const, resource: { type: 'approval', param: 'id' } };

function decision(verdict: 'approved' | 'rejected'): AnyRouteDef {
  const verb = verdict === 'approved' ? 'approve' : 'reject';
  return defineRoute({
    method: 'POST',
    path: `${A}/{id}/${verb}`,
    operationId: `approvals.${verb}`,
    summary: verdict === 'approved' ? 'Approve: the run continues with its next step' : 'Reject: the run ends as failed',
    description: 'A signed-in approver only: a token → 403, a member who is not an approver → 403. An approval already decided or expired → 409 `already_decided`; one whose run was canceled → 409 `run_not_waiting`.',
    tags,
    auth: 'session',
    access: readsIt,
    params: ApprovalParams,
    body: DecideBody,
    example: { comment: verdict === 'approved' ? 'Looks right.' : 'Not this quarter.' },
    responses: { 200: { description: 'The approval, decided', schema: Approval } },
    errors: [ApprovalErrors.not_approver, ApprovalErrors.already_decided, ApprovalErrors.run_not_waiting],
    handler: ({ principal, params, body, resolve }) => resolve('approvals.service').decide(principal, params.ws, params.id, verdict, body?.comment ?? null),
  });
}

export function approvalRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: A,
      operationId: 'approvals.list',
      summary: 'Approvals the caller is asked for, and all of those on databases it is a creator of; newest first',
      tags,
      auth: 'session',
      access: { role: 'guest' as const },
      query: ListQuery,
      params: WorkspaceParams,
      responses: { 200: { description: 'One page of approvals', schema: ApprovalList } },
      handler: ({ principal, access, query, resolve }) => resolve('approvals.service').list(principal, access, query),
    }),
    defineRoute({
      method: 'GET',
      path: `${A}/{id}`,
      operationId: 'approvals.get',
      summary: 'An approval, to one of its approvers or a creator of its database',
      tags,
      auth: 'session',
      access: readsIt,
      params: ApprovalParams,
      responses: { 200: { description: 'The approval', schema: Approval } },
      handler: ({ principal, access, params, resolve }) => resolve('approvals.service').get(principal, access, params.id),
    }),
    decision('approved'),
    decision('rejected'),
  ];
}
