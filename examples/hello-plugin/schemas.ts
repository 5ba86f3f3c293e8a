import { Type, type Static } from 'tessera/schema';
import { pageOf } from 'tessera/pagination';

/** Validated at start-up; defaults are applied before `register` sees them. */
export const HelloOptions = Type.Object(
  {
    /** Also sent as the X-Hello header, hence printable ASCII only. */
    greeting: Type.String({ minLength: 1, maxLength: 40, pattern: '^[\\x20-\\x7E]+$', default: 'Hello' }),
  },
  { additionalProperties: false },
);
export type HelloOptions = Static<typeof HelloOptions>;

export const Greeting = Type.Object({
  id: Type.String({ format: 'uuid' }),
  workspace_id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  message: Type.String(),
  created_by: Type.String({ format: 'uuid', description: 'The member who greeted' }),
  created_at: Type.String({ format: 'date-time' }),
});
export type Greeting = Static<typeof Greeting>;

export const GreetingList = pageOf(Greeting);

export const CreateGreetingBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100, description: 'Who to greet; a member greets each name once per workspace' }) },
  { additionalProperties: false },
);

export const WorkspaceParams = Type.Object({ ws: Type.String({ format: 'uuid' }) });
export const GreetingParams = Type.Object({ ws: Type.String({ format: 'uuid' }), id: Type.String({ format: 'uuid' }) });
