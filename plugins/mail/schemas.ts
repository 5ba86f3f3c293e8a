import { Type, type Static } from '../../core/schema.ts';

export const OutboxMail = Type.Object({
  id: Type.String({ format: 'uuid' }),
  to: Type.String(),
  subject: Type.String(),
  text: Type.String(),
  html: Type.Union([Type.String(), Type.Null()]),
  headers: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], { description: 'Headers the sender added (e.g. `List-Unsubscribe`), or null' }),
  created_at: Type.String({ format: 'date-time' }),
});
export type OutboxMail = Static<typeof OutboxMail>;
