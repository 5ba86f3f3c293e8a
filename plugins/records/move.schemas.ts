import { Type, type Static } from '../../core/schema.ts';

const Anchor = (side: string) => Type.String({ format: 'uuid', description: `A live record of this database to place the record ${side}.` });

export const MoveRecordBody = Type.Object(
  {
    before_id: Type.Optional(Anchor('right before')),
    after_id: Type.Optional(Anchor('right after')),
    values: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: 'Cells to change in the same transaction, as in PATCH (`null` empties a cell).' }),
    ),
  },
  { additionalProperties: false, description: 'At most one of `before_id` and `after_id`; neither moves the record to the end.' },
);
export type MoveRecordBody = Static<typeof MoveRecordBody>;
