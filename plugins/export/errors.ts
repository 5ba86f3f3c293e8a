import { defineErrors } from '../../core/errors.ts';

/** The export plugin's codes, beyond the kernel's. */
export const ExportErrors = defineErrors({
  export_not_ready: {
    status: 409,
    when: 'The workspace export is still queued or running, or it failed',
    create: (status: string) => `This export is ${status}; download it once its status is succeeded.`,
  },
  export_expired: {
    status: 410,
    when: 'The workspace export was kept for `retentionHours` and has been deleted',
    create: () => 'This export has expired and its zip was deleted; start a new one.',
  },
});
