import { Type, type Static } from '../../core/schema.ts';

const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });

export const DatabaseParams = Type.Object({ ws: Uuid('Workspace id'), db: Uuid('Database id') });
export const FieldParams = Type.Object({ ws: Uuid('Workspace id'), db: Uuid('Database id'), field: Type.String({ minLength: 1, maxLength: 100, description: "The field's id or its `api_name`." }) });

export const Mode = Type.Union([Type.Literal('auto'), Type.Literal('pin'), Type.Literal('forbid')], {
  description: '`auto`: indexed when views or slow queries ask for it; `pin`: always indexed (first in the budget); `forbid`: never.',
});
export type Mode = Static<typeof Mode>;

export const FieldIndex = Type.Object({
  field_id: Uuid(),
  api_name: Type.String(),
  mode: Mode,
  wanted_by: Type.Array(Type.Union([Type.Literal('pin'), Type.Literal('view'), Type.Literal('queries')]), {
    description: 'Why it is indexed: pinned, a view filters or sorts on it, or slow queries did (learned).',
  }),
  indexes: Type.Array(
    Type.Object({
      name: Type.String(),
      direction: Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
        description: 'The order of its keys, the sorts it serves: records sort `key ASC NULLS LAST, id` or `key DESC NULLS LAST, id`, and an index serves only its own. A filter is served by either.',
      }),
      state: Type.Union([Type.Literal('ready'), Type.Literal('building')], { description: '`building`: a concurrent build not finished (or failed, to be rebuilt).' }),
      bytes: Type.Integer({ minimum: 0 }),
      scans: Type.Integer({ minimum: 0, description: 'Times PostgreSQL used it since its statistics were last reset.' }),
    }),
    { description: "The field's indexes, ascending first: one per direction its uses sort it in (`asc` when they only filter), none when nothing asks or the budget is spent." },
  ),
  uses: Type.Integer({ minimum: 0, description: 'Slow queries that filtered or sorted on it, as far as the instance counted.' }),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type FieldIndex = Static<typeof FieldIndex>;

export const IndexList = Type.Object({
  data: Type.Array(FieldIndex),
  next_cursor: Type.Null(),
  budget: Type.Integer({ description: 'Indexes at most per table (databases option `maxViewIndexes`).' }),
});

export const PutModeBody = Type.Object({ mode: Mode }, { additionalProperties: false });
export type PutModeBody = Static<typeof PutModeBody>;
