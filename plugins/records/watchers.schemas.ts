import { Type, type Static } from '../../core/schema.ts';

export const Watcher = Type.Object({
  user_id: Type.String({ format: 'uuid' }),
  name: Type.String({ description: "The watcher's current name." }),
  watching_since: Type.String({ format: 'date-time', description: 'When they started watching.' }),
});
export type Watcher = Static<typeof Watcher>;
