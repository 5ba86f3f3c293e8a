import { defineErrors } from '../../core/errors.ts';

export const GdprErrors = defineErrors({
  export_not_ready: {
    status: 409,
    when: 'The data export is still queued or running, or it failed',
    create: (status: string) => `This export is ${status}; download it once its status is ready.`,
  },
  self_erasure: {
    status: 409,
    when: 'An instance admin asked to erase their own account everywhere',
    create: () => 'You cannot erase your own account: another instance admin can, so the instance keeps one.',
  },
  export_expired: {
    status: 410,
    when: 'The data export was available for 24 hours and has been deleted',
    create: () => 'This export has expired and its file was deleted; request a new one.',
  },
});
