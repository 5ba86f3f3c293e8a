import { Type, type Static } from '../../core/schema.ts';
import { pageQuery } from '../../core/pagination.ts';

/** Notification types are named by the plugins that send them; these are the ones the specification lists. */
export const NOTIFICATION_TYPE = '^[a-z][a-z0-9_]{0,63}$';
export const STATUSES = ['unread', 'read', 'archived'] as const;
export type Status = (typeof STATUSES)[number];

const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Timestamp = (description: string) => Type.String({ format: 'date-time', description });

export const WorkspaceParams = Type.Object({ ws: Uuid('Workspace id') });
export const NotificationParams = Type.Object({ ws: Uuid('Workspace id'), id: Uuid('Notification id') });
export const UnsubscribeParams = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 512, description: 'The token of the link in a notification mail.' }),
});

export const Notification = Type.Object({
  id: Uuid(),
  workspace_id: Uuid(),
  type: Type.String({
    pattern: NOTIFICATION_TYPE,
    description: '`mention`, `comment`, `record_updated`, `assigned`, `approval_requested`, `automation`, `invite`, or a type another plugin sends.',
  }),
  actor: Type.Union([Type.Object({ id: Uuid(), name: Type.String() }), Type.Null()], { description: 'Who caused it; null for no one (a public form) or a former member.' }),
  subject: Type.Object(
    {
      type: Type.String({ description: 'What it is about: `record`, `document`, …' }),
      id: Uuid(),
      title: Nullable(Type.String({ description: "The record's title cell as plain text, or the document's title, when it was sent." })),
    },
    { description: 'What it is about.' },
  ),
  record_id: Nullable(Uuid()),
  database_id: Nullable(Uuid()),
  data: Type.Record(Type.String(), Type.Unknown(), { description: 'What the type adds (`comment_id`, `changed_fields`, `field`, `excerpt`…).' }),
  read: Type.Boolean(),
  read_at: Nullable(Timestamp('When it was read.')),
  archived: Type.Boolean(),
  archived_at: Nullable(Timestamp('When it was archived.')),
  created_at: Timestamp('When it was sent.'),
});
export type Notification = Static<typeof Notification>;

export const NotificationQuery = Type.Composite([
  pageQuery(),
  Type.Object({
    status: Type.Optional(
      Type.Unsafe<Status>({
        type: 'string',
        enum: [...STATUSES],
        description: '`unread` and `read`: in the inbox (not archived); `archived`: archived, read or not. Without it: the inbox.',
      }),
    ),
    type: Type.Optional(Type.String({ pattern: NOTIFICATION_TYPE, description: 'Only notifications of this type.' })),
  }),
]);
export type NotificationQuery = Static<typeof NotificationQuery>;

export const UnreadCount = Type.Object({ count: Type.Integer({ minimum: 0, description: 'Unread notifications in the inbox (not archived).' }) });
export const ReadAll = Type.Object({ updated: Type.Integer({ minimum: 0, description: 'How many unread notifications of the inbox were marked read.' }) });
export const Unsubscribed = Type.Object({
  type: Type.String({ description: 'The notification type no longer sent by email (the first, for a link naming several).' }),
  types: Type.Array(Type.String(), { description: "Every type the link names: one for a line's link, all those of the mail for its `List-Unsubscribe` header." }),
  email: Type.Boolean({ description: 'Always false: email for these types is off.' }),
});

/** RFC 8058's one-click POST: the form field a mail client sends, nothing else. */
export const OneClickBody = Type.Object(
  { 'List-Unsubscribe': Type.Optional(Type.Literal('One-Click', { description: 'What RFC 8058 mail clients send; optional.' })) },
  { additionalProperties: false },
);
