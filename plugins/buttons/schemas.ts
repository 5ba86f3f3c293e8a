import { Type, type Static } from '../../core/schema.ts';

const Uuid = Type.String({ format: 'uuid' });

export const ButtonOptions = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: 100, description: 'What the button says.' }),
    automation_id: Type.String({ format: 'uuid', description: 'An automation of the same database whose trigger is `{ "type": "button" }`.' }),
  },
  { additionalProperties: false },
);
export type ButtonOptions = Static<typeof ButtonOptions>;

export const PressParams = Type.Object({ ws: Uuid, db: Uuid, id: Uuid, field: Type.String({ minLength: 1, maxLength: 128, description: 'The button field, by id or api_name.' }) });
export const Pressed = Type.Object({ run_id: Uuid });
