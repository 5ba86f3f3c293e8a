import { defineErrors } from '../../core/errors.ts';

export const GdprErrors = defineErrors({
  export_not_ready: {
    status: 409,
    when: 'The data export is still queued or running, or it failed',
    create: (status: string) => `This export is ${status}; download it once its status is ready.`,
  },
  export_expired: {
    status: 410,
    when: 'The data export was available for 24 hours and has been deleted',
    create: () => 'This export has expired and its file was deleted; request a new one.',
  },
});
