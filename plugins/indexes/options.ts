import { Type, type Static } from '../../core/schema.ts';

export const IndexesOptionsSchema = Type.Object(
  {
    learnAfter: Type.Integer({ minimum: 1, maximum: 1000, default: 3, description: 'Slow queries filtering or sorting on a field before it is indexed.' }),
    slowMs: Type.Number({ minimum: 0, maximum: 60_000, default: 10, description: 'A query at least this slow (ms) counts towards indexing its fields.' }),
    minRows: Type.Integer({ minimum: 0, default: 10_000, description: 'A table with fewer records is read whole faster than through an index: nothing is learned there.' }),
    dropAfterDays: Type.Integer({ minimum: 1, maximum: 3650, default: 14, description: 'A learned index no query has used for this long is dropped.' }),
  },
  { additionalProperties: false },
);
export type IndexesOptions = Static<typeof IndexesOptionsSchema>;
