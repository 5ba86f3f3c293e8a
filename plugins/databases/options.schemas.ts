import { Type, type Static } from '../../core/schema.ts';
import { COLORS } from './field-types/choices.ts';

const Color = Type.Union(COLORS.map((c) => Type.Literal(c)), { description: `One of: ${COLORS.join(', ')}.` });

export const OptionParams = Type.Object({
  ws: Type.String({ format: 'uuid' }),
  db: Type.String({ format: 'uuid' }),
  field: Type.String({ minLength: 1, maxLength: 100, description: "The field's id or its `api_name`." }),
  option_id: Type.String({ format: 'uuid' }),
});

export const Option = Type.Object({ id: Type.String({ format: 'uuid' }), label: Type.String(), color: Type.String() });

export const CreateOptionBody = Type.Object(
  { label: Type.String({ minLength: 1, maxLength: 100, description: 'Unique within the field (ignoring case); trimmed.' }), color: Type.Optional(Color) },
  { additionalProperties: false },
);
export type CreateOptionBody = Static<typeof CreateOptionBody>;

export const PatchOptionBody = Type.Object(
  { label: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })), color: Type.Optional(Color) },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchOptionBody = Static<typeof PatchOptionBody>;

export const DeleteOptionQuery = Type.Object({
  confirm: Type.Optional(Type.Boolean({ default: false, description: '`true` clears the option from the records using it.' })),
});
