/** What other plugins may use from the approvals plugin: the service's type (`approvals.service`) and the approval's shape. */
export type { ApprovalService } from './approvals.service.ts';
export type { Approval, ApprovalStatus } from './schemas.ts';
