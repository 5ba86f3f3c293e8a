import { defineErrors } from '../../core/errors.ts';

/** The codes only the approvals plugin answers with. */
export const ApprovalErrors = defineErrors({
  not_approver: {
    status: 403,
    when: 'Deciding an approval one is not an approver of',
    create: () => 'Only the approvers named by the automation can decide this approval.',
  },
  already_decided: {
    status: 409,
    when: 'Approving or rejecting an approval that is no longer pending',
    create: (status: string) => `This approval is already ${status}.`,
  },
  run_not_waiting: {
    status: 409,
    when: 'Deciding an approval whose run no longer waits for it (canceled, or ended)',
    create: () => 'The run this approval was for no longer waits for it.',
  },
});
