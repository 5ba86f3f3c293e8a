import { Type, type Static } from '../../core/schema.ts';

export const OutboxMail = Type.Object({
  id: Type.String({ format: 'uuid' }),
  to: Type.String(),
  subject: Type.String(),
  text: Type.String(),
  html: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});
export type OutboxMail = Static<typeof OutboxMail>;
