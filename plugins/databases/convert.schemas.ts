import { Type, type Static } from '../../core/schema.ts';

export const ConvertFieldBody = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 50, description: 'The new type; it must be in the compatibility matrix of the current one.' }),
    options: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "The new type's options. Omitted: a select keeps its choices; text becoming a select gets one choice per distinct value." })),
    dry_run: Type.Optional(Type.Boolean({ default: false, description: '`true`: report what would happen and change nothing.' })),
  },
  { additionalProperties: false },
);
export type ConvertFieldBody = Static<typeof ConvertFieldBody>;

export const Conversion = Type.Object({
  converted: Type.Integer({ description: 'Records whose value carries over.' }),
  lost: Type.Integer({ description: 'Records whose value becomes empty.' }),
  changed: Type.Integer({ description: 'Records whose value carries over changed: rounded to a lower precision (within one column type; 0 across types, where every value takes a new form).' }),
  samples: Type.Array(
    Type.Object({ record_id: Type.String({ format: 'uuid' }), before: Type.Unknown(), after: Type.Unknown() }),
    { description: 'Up to 5 records: those that lose their value first, then those whose value changes.' },
  ),
  dry_run: Type.Boolean(),
});
export type Conversion = Static<typeof Conversion>;
