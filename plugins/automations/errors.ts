import { defineErrors } from '../../core/errors.ts';

/** The codes only the automations plugin answers with; the kernel's own (`not_found`, `validation_failed`…) are in core/errors.ts. */
export const AutomationErrors = defineErrors({
  run_finished: {
    status: 409,
    when: 'Canceling a run that already succeeded, failed or was canceled',
    create: (status: string) => `This run is ${status}: only queued, running or waiting runs can be canceled.`,
  },
  not_inbound: {
    status: 409,
    when: 'Rotating the hook of an automation whose trigger is not inbound_webhook',
    create: () => 'Only an inbound_webhook automation has a hook to rotate.',
  },
  bad_signature: {
    status: 401,
    when: 'An inbound hook post whose webhook-id, webhook-timestamp or webhook-signature does not check out with the hook secret',
    create: (detail: string) => detail,
  },
});
