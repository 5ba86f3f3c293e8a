import type { Role } from '../../core/roles.ts';
import type { MailMessage } from '../mail/public.ts';

export interface InviteMailInput {
  email: string;
  workspaceName: string;
  inviterName: string;
  role: Role;
  acceptUrl: string;
}

const ARTICLE: Record<Role, string> = { admin: 'an admin', creator: 'a creator', editor: 'an editor', member: 'a member', guest: 'a guest' };

/** The invitation as the invitee reads it: who, which workspace, and the one link that acts. */
export function inviteMail(input: InviteMailInput): MailMessage {
  return {
    to: input.email,
    subject: `${input.inviterName} invited you to join ${input.workspaceName} on Tessera`,
    text: [
      `${input.inviterName} invited you to join the workspace "${input.workspaceName}" on Tessera as ${ARTICLE[input.role]}.`,
      '',
      'Accept the invitation:',
      input.acceptUrl,
      '',
      `Sign in or sign up with ${input.email} to accept; the link works for that address only.`,
      'If you were not expecting this invitation, you can ignore this email.',
      '',
    ].join('\n'),
  };
}
