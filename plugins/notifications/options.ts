import { Type, type Static } from '../../core/schema.ts';

export const NotificationsOptionsSchema = Type.Object(
  {
    emailDigestMinutes: Type.Integer({
      minimum: 1,
      maximum: 10_080,
      default: 10,
      description: 'At most one mail per user per this many minutes, listing every notification that arrived since the last one.',
    }),
    unsubscribeKey: Type.Optional(
      Type.String({
        minLength: 32,
        description: 'The key unsubscribe links are signed with (HMAC-SHA256). Without it, a random key is made once and kept in the database.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type NotificationsOptions = Static<typeof NotificationsOptionsSchema>;
