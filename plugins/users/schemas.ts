import { Type, type Static } from '../../core/schema.ts';

/** Notification types are defined by the plugins that send them (mention, comment, ...). */
const NOTIFICATION_TYPE = '^[a-z][a-z0-9_]{0,63}$';

export const Delivery = Type.Object(
  {
    inbox: Type.Boolean({ description: 'Show it in the in-app inbox.' }),
    email: Type.Boolean({ description: 'Send it by email.' }),
  },
  { additionalProperties: false },
);

export const Preferences = Type.Object({
  locale: Type.String({ description: 'BCP 47 language tag, canonical form (`en`, `pt-BR`).', examples: ['en'] }),
  timezone: Type.String({ description: 'IANA time zone, as given (`UTC`, `Europe/Paris`).', examples: ['UTC'] }),
  notifications: Type.Record(Type.String({ pattern: NOTIFICATION_TYPE }), Delivery, {
    description: 'Delivery per notification type; a type not listed is delivered to the inbox and by email.',
  }),
});
export type Preferences = Static<typeof Preferences>;

export const PatchPreferencesBody = Type.Object(
  {
    locale: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'BCP 47 language tag.' })),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone name.' })),
    notifications: Type.Optional(
      Type.Record(
        Type.String({ pattern: NOTIFICATION_TYPE }),
        Type.Object(
          { inbox: Type.Optional(Type.Boolean()), email: Type.Optional(Type.Boolean()) },
          { additionalProperties: false, description: 'Replaces the type’s delivery; an omitted channel is on.' },
        ),
        {
          additionalProperties: false,
          maxProperties: 200,
          description: 'Merged into the stored settings type by type.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type PatchPreferencesBody = Static<typeof PatchPreferencesBody>;

export const UserIdParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const AvatarQuery = Type.Object({
  v: Type.Optional(Type.String({ description: 'Cache buster carried by `avatar_url`; ignored by the server.' })),
});
