import { defineErrors } from '../../core/errors.ts';

/** The codes only the workspaces plugin answers with; the kernel's own (`not_found`, `forbidden`…) are in core/errors.ts. */
export const WorkspaceErrors = defineErrors({
  last_admin: {
    status: 409,
    when: 'The change would leave the workspace without an admin',
    create: (change: 'demote' | 'remove') =>
      `This is the last admin of the workspace; make another member admin first${change === 'remove' ? ', or delete the workspace' : ''}.`,
  },
  already_member: {
    status: 409,
    when: 'Inviting someone who is already a member',
    create: () => 'Someone with this email address is already a member of this workspace.',
  },
  invite_pending: {
    status: 409,
    when: 'An invite to this address is pending already',
    create: (workspaceId: string, id = '{id}') =>
      `An invite to this address is already pending; resend it (POST /workspaces/${workspaceId}/invites/${id}/resend) for a fresh link, or revoke it first.`,
  },
  invite_not_pending: {
    status: 409,
    when: 'Resending an invite that was accepted or revoked',
    create: (status: string) => `Only a pending invite can be resent; this one is ${status}.`,
  },
  invite_accepted: {
    status: 409,
    when: 'Revoking an invite that was accepted',
    create: () => 'This invite was already accepted; remove the member instead.',
  },
  invite_spaces_gone: {
    status: 409,
    when: 'Accepting a guest invite whose spaces have all been deleted',
    create: () => 'Every space this invite gave access to has been deleted; ask an admin of the workspace for a new invite.',
  },
});
