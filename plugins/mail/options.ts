import { Type, type Static } from '../../core/schema.ts';

const Smtp = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, description: '`smtp://user:pass@host:587` or `smtps://…:465`; keys given next to it override what it says.' })),
    host: Type.Optional(Type.String({ minLength: 1 })),
    port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description: 'Default 587, or 465 when `secure`.' })),
    secure: Type.Optional(Type.Boolean({ description: 'TLS from the first byte (port 465). Otherwise STARTTLS is used when the server offers it.' })),
    requireTLS: Type.Optional(Type.Boolean({ description: 'Refuse to send unless STARTTLS succeeds (no silent plain-text fallback).' })),
    rejectUnauthorized: Type.Optional(Type.Boolean({ description: 'Default true; false accepts a self-signed certificate of a relay you trust.' })),
    user: Type.Optional(Type.String({ minLength: 1 })),
    password: Type.Optional(Type.String({ description: 'Put it in the environment: `{ "$env": "SMTP_PASSWORD" }`.' })),
  },
  { additionalProperties: false },
);

export const MailOptionsSchema = Type.Object(
  {
    provider: Type.Optional(
      Type.String({ minLength: 1, description: 'Which provider delivers: `smtp`, `outbox`, or one a plugin adds. Default: `smtp` when `smtp` is set, else `outbox`.' }),
    ),
    from: Type.Optional(Type.String({ minLength: 3, description: 'Sender, e.g. `Tessera <no-reply@example.com>`; required by `smtp`.' })),
    smtp: Type.Optional(Smtp),
    retry: Type.Object(
      {
        limit: Type.Integer({ minimum: 0, default: 8, description: 'Retries after the first attempt before a message is given up (and logged).' }),
        delaySeconds: Type.Integer({ minimum: 1, default: 30, description: 'First retry delay; it doubles with each retry.' }),
      },
      { additionalProperties: false, default: {} },
    ),
  },
  { additionalProperties: false, default: {} },
);

export type MailOptions = Static<typeof MailOptionsSchema>;
export type SmtpOptions = Static<typeof Smtp>;
