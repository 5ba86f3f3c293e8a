import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { PageQuery, pageOf } from '../../core/pagination.ts';
import { OutboxMail } from './schemas.ts';

export function mailRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/admin/mail/outbox',
      operationId: 'mail.outbox.list',
      summary: 'Read the local mail outbox, newest first',
      description:
        'Messages the `outbox` provider stored instead of sending (instances without SMTP). They may hold links that act for ' +
        'their recipient (invitations): forward each to its recipient only.',
      tags: ['mail'],
      auth: 'instance_admin',
      query: PageQuery,
      responses: { 200: { description: 'A page of stored messages', schema: pageOf(OutboxMail) } },
      handler: ({ query, resolve }) => resolve('mail.outbox').list(query),
    }),
  ];
}
