import { defineErrors } from '../../core/errors.ts';

/** The codes only the auth plugin answers with; the kernel's own (`validation_failed`, `rate_limited`…) are in core/errors.ts. */
export const AuthErrors = defineErrors({
  email_taken: { status: 409, when: 'An account with this email already exists', create: () => 'An account with this email already exists.' },
  wrong_password: {
    status: 422,
    when: 'The current password sent is wrong',
    create: () => ({
      detail: 'The current password is wrong.',
      errors: [{ pointer: '/current_password', detail: 'Does not match your current password.' }],
    }),
  },
  /** Unknown, used and expired tokens get this one answer, so a guessed token learns nothing about the others. */
  reset_token_invalid: {
    status: 422,
    when: 'The password reset token is unknown, used or expired',
    create: () => ({
      detail: 'This password reset link is not valid (it may have expired, been used, or been replaced by a newer one); request a new one.',
      errors: [{ pointer: '/token', detail: 'Unknown, used or expired.' }],
    }),
  },
  sign_up_closed: {
    status: 403,
    when: 'Sign-up is closed on this instance',
    create: () => 'Sign-up is closed on this instance; ask an instance admin for an account.',
  },
  sign_up_invite_only: {
    status: 403,
    when: 'Sign-up needs a pending workspace invite to this address',
    create: () => 'Sign-up on this instance needs an invitation: use the address a workspace invite was sent to.',
  },
});
