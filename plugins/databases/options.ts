import { Type, type Static } from '../../core/schema.ts';

export const DatabasesOptionsSchema = Type.Object(
  {
    maxFields: Type.Integer({
      minimum: 1,
      maximum: 1500,
      default: 500,
      description: 'At most this many live fields per database (links, lookups and rollups count).',
    }),
    maxViewIndexes: Type.Integer({
      minimum: 0,
      maximum: 32,
      default: 6,
      description: 'At most this many `(field, id)` indexes per records table for the fields views sort or filter on (each one costs every write).',
    }),
  },
  { additionalProperties: false, default: {} },
);
export type DatabasesOptions = Static<typeof DatabasesOptionsSchema>;
