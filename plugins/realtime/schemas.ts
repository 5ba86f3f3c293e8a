import { Type, type Static } from '../../core/schema.ts';

export const RealtimeOptions = Type.Object(
  {
    replayMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 1440, default: 10, description: 'How far back `Last-Event-ID` replays what a reconnecting stream missed.' })),
    heartbeatSeconds: Type.Optional(Type.Number({ minimum: 0.1, maximum: 300, default: 15, description: 'A comment line this often keeps proxies from closing an idle stream; the credential is checked again each time.' })),
    pollMilliseconds: Type.Optional(Type.Integer({ minimum: 5, maximum: 5000, default: 50, description: 'How often a process with open streams looks for events other processes recorded.' })),
  },
  { additionalProperties: false },
);
export type RealtimeOptions = Static<typeof RealtimeOptions>;

export const EventsParams = Type.Object({ ws: Type.String({ format: 'uuid' }) });
export const EventsQuery = Type.Object({
  topics: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 4000,
      description: 'Comma-separated `database:{id}` and `record:{id}` (at most 100). Without it: everything in the workspace the caller may read.',
    }),
  ),
});

/** The `data` of each event on the stream. */
export const StreamedEvent = Type.Object({
  name: Type.String({ description: '`record.created`, `comment.updated`, `field.deleted`, …' }),
  workspace_id: Type.String({ format: 'uuid' }),
  actor_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  occurred_at: Type.String({ format: 'date-time' }),
  payload: Type.Unknown({ description: 'As the event carries it, shown as the caller reads it (cells of databases it cannot see read empty).' }),
});
