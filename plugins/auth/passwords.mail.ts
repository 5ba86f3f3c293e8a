import type { MailMessage } from '../mail/public.ts';

export interface ResetMailInput {
  email: string;
  resetUrl: string;
  token: string;
  ttlMinutes: number;
  /** An instance admin reset the password: the old one no longer works, so this is not ignorable. */
  byAdmin: boolean;
}

export function resetMail(input: ResetMailInput): MailMessage {
  const opening = input.byAdmin
    ? ['An administrator of this Tessera instance reset the password of your account; you have been signed out everywhere.', 'Choose a new password:']
    : ['Someone (hopefully you) asked to reset the password of your Tessera account.', 'Choose a new password:'];
  return {
    to: input.email,
    subject: input.byAdmin ? 'Your Tessera password was reset' : 'Reset your Tessera password',
    text: [
      ...opening,
      input.resetUrl,
      '',
      `The link works once, for ${input.ttlMinutes} minutes. An API client sends this token to POST /api/v1/auth/password-reset/confirm:`,
      input.token,
      '',
      input.byAdmin
        ? 'If you did not expect this, contact the administrator of the instance.'
        : 'If you did not ask for this, ignore this email: your password stays as it is.',
      '',
    ].join('\n'),
  };
}
