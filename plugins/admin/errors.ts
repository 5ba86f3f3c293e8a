import { defineErrors } from '../../core/errors.ts';

/** The codes only the admin plugin answers with; the kernel's own (`not_found`, `forbidden`…) are in core/errors.ts. */
export const AdminErrors = defineErrors({
  self_change: {
    status: 409,
    when: 'An instance admin tries to disable themselves or drop their own instance-admin flag',
    create: (change: 'disable' | 'demote') =>
      change === 'disable'
        ? 'You cannot disable your own account; another instance admin can.'
        : 'You cannot remove your own instance-admin flag; another instance admin can.',
  },
  last_instance_admin: {
    status: 409,
    when: 'The change would leave the instance without an enabled instance admin',
    create: () => 'This is the last enabled instance admin; make another user instance admin first.',
  },
});
