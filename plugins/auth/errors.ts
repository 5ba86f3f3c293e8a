import { AppError, conflict } from '../../core/errors.ts';

/** The codes only the auth plugin answers with; the kernel's own (`validation_failed`, `rate_limited`…) are in core/errors.ts. */
export type AuthErrorCode = 'email_taken' | 'wrong_password' | 'reset_token_invalid' | 'sign_up_closed' | 'sign_up_invite_only';

export const emailTaken = () => conflict('An account with this email already exists.', undefined, 'email_taken' satisfies AuthErrorCode);

export const wrongCurrentPassword = () =>
  new AppError({
    status: 422,
    code: 'wrong_password' satisfies AuthErrorCode,
    title: 'Unprocessable Content',
    detail: 'The current password is wrong.',
    errors: [{ pointer: '/current_password', detail: 'Does not match your current password.' }],
  });

/** Unknown, used and expired tokens get this one answer, so a guessed token learns nothing about the others. */
export const resetTokenInvalid = () =>
  new AppError({
    status: 422,
    code: 'reset_token_invalid' satisfies AuthErrorCode,
    title: 'Unprocessable Content',
    detail: 'This password reset link is not valid (it may have expired, been used, or been replaced by a newer one); request a new one.',
    errors: [{ pointer: '/token', detail: 'Unknown, used or expired.' }],
  });

export const signUpClosed = () =>
  new AppError({
    status: 403,
    code: 'sign_up_closed' satisfies AuthErrorCode,
    title: 'Forbidden',
    detail: 'Sign-up is closed on this instance; ask an instance admin for an account.',
  });

export const signUpInviteOnly = () =>
  new AppError({
    status: 403,
    code: 'sign_up_invite_only' satisfies AuthErrorCode,
    title: 'Forbidden',
    detail: 'Sign-up on this instance needs an invitation: use the address a workspace invite was sent to.',
  });
