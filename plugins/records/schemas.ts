import { Type, type Static } from '../../core/schema.ts';
import { pageQuery } from '../../core/pagination.ts';

const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const Timestamp = Type.String({ format: 'date-time' });

export const MAX_BULK = 100;

export const RecordsParams = Type.Object({ ws: Uuid('Workspace id'), db: Uuid('Database id') });
export const RecordParams = Type.Object({ ws: Uuid('Workspace id'), db: Uuid('Database id'), id: Uuid('Record id') });
export const NumberParams = Type.Object({
  ws: Uuid('Workspace id'),
  db: Uuid('Database id'),
  n: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: "The record's per-database number." }),
});

const Values = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Cells keyed by field `api_name`; `null` empties a cell. Read-only (system) fields cannot be written.',
});

const RecordInput = Type.Object({ values: Values }, { additionalProperties: false });

/**
 * One object with two optional keys rather than a union: a union's 422 would list the errors of
 * both branches; this way each error points at what was sent. The service requires exactly one.
 */
export const CreateRecordsBody = Type.Object(
  {
    values: Type.Optional(Values),
    records: Type.Optional(Type.Array(RecordInput, { minItems: 1, maxItems: MAX_BULK, description: `1–${MAX_BULK} records, stored all or none.` })),
  },
  { additionalProperties: false },
);
export type CreateRecordsBody = Static<typeof CreateRecordsBody>;

export const PatchRecordBody = Type.Object(
  {
    values: Values,
    version: Type.Optional(Type.Integer({ minimum: 1, description: 'The version you read; a stale one → 409 `version_conflict` with `current_version`. Without it, the last write wins.' })),
  },
  { additionalProperties: false },
);
export type PatchRecordBody = Static<typeof PatchRecordBody>;

export const RecordListQuery = Type.Composite([
  pageQuery(1000),
  Type.Object({ q: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'Case-insensitive substring of the title; `%` and `_` match themselves.' })) }),
]);
export type RecordListQuery = Static<typeof RecordListQuery>;

export const ApiRecord = Type.Object({
  id: Uuid(),
  number: Type.Integer({ description: 'Per database, from 1, never reused.' }),
  values: Type.Record(Type.String(), Type.Unknown(), { description: 'Every live field by `api_name` (null when empty), system fields included.' }),
  position: Type.String({ description: 'Fractional index of the manual order (compare as bytes).' }),
  version: Type.Integer({ description: 'Bumped by every update; send it back in PATCH to detect concurrent edits.' }),
  created_at: Timestamp,
  created_by: Type.Union([Uuid(), Type.Null()]),
  updated_at: Timestamp,
  updated_by: Type.Union([Uuid(), Type.Null()]),
});
export type ApiRecord = Static<typeof ApiRecord>;

export const MAX_BATCH = 200;

export const PatchRecordsBody = Type.Object(
  {
    records: Type.Array(Type.Object({ id: Uuid('Record id'), values: Values }, { additionalProperties: false }), {
      minItems: 1,
      maxItems: MAX_BATCH,
      description: `1–${MAX_BATCH} records, each id once; the valid ones are applied, the others reported in \`errors\`.`,
    }),
  },
  { additionalProperties: false },
);
export type PatchRecordsBody = Static<typeof PatchRecordsBody>;

export const RecordIdsBody = Type.Object(
  { ids: Type.Array(Uuid(), { minItems: 1, maxItems: MAX_BATCH, description: `1–${MAX_BATCH} record ids.` }) },
  { additionalProperties: false },
);
export type RecordIdsBody = Static<typeof RecordIdsBody>;

export const RecordError = Type.Object({
  id: Uuid(),
  code: Type.Union([Type.Literal('not_found'), Type.Literal('validation_failed')]),
  detail: Type.String(),
});
export type RecordError = Static<typeof RecordError>;

export const TrashedRecord = Type.Composite([ApiRecord, Type.Object({ deleted_at: Timestamp })]);
export type TrashedRecord = Static<typeof TrashedRecord>;
