import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { pageOf } from '../../core/pagination.ts';
import { Notification, NotificationParams, NotificationQuery, OneClickBody, ReadAll, UnreadCount, UnsubscribeParams, Unsubscribed, WorkspaceParams } from './schemas.ts';

const tags = ['notifications'];
const P = '/workspaces/{ws}/notifications';
/** Every member reads their own notifications, a guest included, and a token of the workspace for its user. */
const anyMember = { role: 'guest' as const };
const NOT_YOURS = "Not one of the caller's notifications, or about a database the caller no longer sees";
const UNSUBSCRIBE = '/public/notifications/unsubscribe/{token}';
const UNSUBSCRIBE_DESCRIPTION =
  'No credential: the token in the link of a notification mail names its recipient and a notification type (or, in the `List-Unsubscribe` header, every type the mail holds), signed with the instance key (HMAC-SHA256). ' +
  "It turns email off for those types in the recipient's preferences (`/me/preferences`), leaving the inbox as it was. Idempotent: using it again answers 200 " +
  'and turns email off again. A token not made by this instance, or naming an account that is gone: 404.';
const UNSUBSCRIBE_RESPONSES = { 200: { description: 'Email is off for the types', schema: Unsubscribed }, 404: { description: 'No such unsubscribe link' } };

export function notificationRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: P,
      operationId: 'notifications.list',
      summary: "The caller's notifications in the workspace, newest first",
      description:
        'Without `status`: the inbox (every notification not archived). `status=unread` / `read`: the inbox narrowed; `status=archived`: the archive, read or not. ' +
        '`type` narrows to one type. A caller who sees only part of the workspace (a guest) sees only notifications about databases it can see now. ' +
        'Keyset paging: `?limit=` (≤ 200), `?cursor=`.',
      tags,
      auth: 'user',
      access: anyMember,
      params: WorkspaceParams,
      query: NotificationQuery,
      responses: { 200: { description: 'A page of notifications', schema: pageOf(Notification) } },
      handler: ({ principal, access, query, resolve }) => resolve('notifications.inbox').list(principal, access.access, query),
    }),
    defineRoute({
      method: 'GET',
      path: `${P}/unread-count`,
      operationId: 'notifications.unreadCount',
      summary: 'How many notifications of the inbox are unread: the badge',
      tags,
      auth: 'user',
      access: anyMember,
      params: WorkspaceParams,
      responses: { 200: { description: 'The unread count', schema: UnreadCount } },
      handler: async ({ principal, access, resolve }) => ({ count: await resolve('notifications.inbox').unreadCount(principal, access.access) }),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/read-all`,
      operationId: 'notifications.readAll',
      summary: 'Mark every unread notification of the inbox read',
      description: 'Archived notifications keep their state. `updated` is how many changed (0 when none were unread).',
      tags,
      auth: 'user',
      access: anyMember,
      params: WorkspaceParams,
      responses: { 200: { description: 'Marked read', schema: ReadAll } },
      handler: async ({ principal, access, resolve }) => ({ updated: await resolve('notifications.inbox').readAll(principal, access.access) }),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/{id}/read`,
      operationId: 'notifications.read',
      summary: 'Mark a notification read',
      description: 'unread → read; one already read stays as it is. Whether it is archived does not change.',
      tags,
      auth: 'user',
      access: anyMember,
      params: NotificationParams,
      responses: { 200: { description: 'The notification, read', schema: Notification }, 404: { description: NOT_YOURS } },
      handler: ({ principal, access, params, resolve }) => resolve('notifications.inbox').read(principal, access.access, params.id),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/{id}/archive`,
      operationId: 'notifications.archive',
      summary: 'Archive a notification',
      description: 'inbox → archived; it leaves the inbox and the unread count, and keeps whether it was read.',
      tags,
      auth: 'user',
      access: anyMember,
      params: NotificationParams,
      responses: { 200: { description: 'The notification, archived', schema: Notification }, 404: { description: NOT_YOURS } },
      handler: ({ principal, access, params, resolve }) => resolve('notifications.inbox').archive(principal, access.access, params.id),
    }),
    defineRoute({
      method: 'POST',
      path: `${P}/{id}/unarchive`,
      operationId: 'notifications.unarchive',
      summary: 'Move a notification back to the inbox',
      description: 'archived → inbox, read or unread as it was: **201**, as the specification says (also for one that was not archived).',
      tags,
      auth: 'user',
      access: anyMember,
      params: NotificationParams,
      status: 201,
      responses: { 201: { description: 'The notification, back in the inbox', schema: Notification }, 404: { description: NOT_YOURS } },
      handler: ({ principal, access, params, resolve }) => resolve('notifications.inbox').unarchive(principal, access.access, params.id),
    }),
    defineRoute({
      method: 'GET',
      path: UNSUBSCRIBE,
      operationId: 'notifications.unsubscribe',
      summary: 'Turn email off for one notification type, from the link in a mail',
      description: UNSUBSCRIBE_DESCRIPTION,
      tags,
      auth: 'public',
      params: UnsubscribeParams,
      responses: UNSUBSCRIBE_RESPONSES,
      handler: ({ params, resolve }) => resolve('notifications.unsubscriber').unsubscribe(params.token),
    }),
    defineRoute({
      method: 'POST',
      path: UNSUBSCRIBE,
      operationId: 'notifications.unsubscribeOneClick',
      summary: "The same, for mail clients' one-click unsubscribe (RFC 8058)",
      description:
        `${UNSUBSCRIBE_DESCRIPTION} The mail's \`List-Unsubscribe\` header names this URL; a client unsubscribes by POSTing \`List-Unsubscribe=One-Click\` ` +
        'as `application/x-www-form-urlencoded` or `multipart/form-data`. No body does the same; any other field → 422.',
      tags,
      auth: 'public',
      params: UnsubscribeParams,
      bodyType: 'form',
      body: OneClickBody,
      example: { 'List-Unsubscribe': 'One-Click' },
      responses: UNSUBSCRIBE_RESPONSES,
      handler: ({ params, resolve }) => resolve('notifications.unsubscriber').unsubscribe(params.token),
    }),
  ];
}
