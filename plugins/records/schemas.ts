import { documented, Type, type Static } from '../../core/schema.ts';
import { FILTER_OPS } from '../databases/public.ts';
import { valuesDoc } from './cell-docs.ts';
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

const VALUES_IN = 'Cells keyed by field `api_name`; `null` empties a cell. Read-only (system) fields cannot be written.';
const Values = documented(Type.Record(Type.String(), Type.Unknown(), { description: VALUES_IN }), ({ resolve }) => valuesDoc(VALUES_IN, resolve('databases.fieldTypes')));

const RecordInput = Type.Object({ values: Values }, { additionalProperties: false });

/**
 * One object with two optional keys rather than a union: a union's 422 would list the errors of
 * both branches; this way each error points at what was sent. The service requires exactly one.
 */
/** One of `values` and `records`: the handler says which is missing or why not both, at its pointer. */
export const CreateRecordsBody = documented(
  Type.Object(
    {
      values: Type.Optional(Values),
      records: Type.Optional(Type.Array(RecordInput, { minItems: 1, maxItems: MAX_BULK, description: `1–${MAX_BULK} records, stored all or none.` })),
    },
    { additionalProperties: false },
  ),
  { also: { oneOf: [{ required: ['values'] }, { required: ['records'] }] } },
);
export type CreateRecordsBody = Static<typeof CreateRecordsBody>;

export const PatchRecordBody = Type.Object(
  {
    values: Values,
    // The column is a PostgreSQL integer: a larger number is no version at all (it reached SQL as a 500 once).
    version: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The version you read; a stale one → 409 `version_conflict` with `current_version`. Without it, the last write wins.' })),
  },
  { additionalProperties: false },
);
export type PatchRecordBody = Static<typeof PatchRecordBody>;

const Q = Type.String({ minLength: 1, maxLength: 1000, description: 'Case-insensitive substring of the title; `%` and `_` match themselves.' });
const ViewId = Uuid("A view of this database: its filter applies (with yours, if any) and its sorts unless you send `sorts`.");

export const RecordListQuery = Type.Composite([pageQuery(1000), Type.Object({ q: Type.Optional(Q), view_id: Type.Optional(ViewId) })]);
export type RecordListQuery = Static<typeof RecordListQuery>;

export const FILTER_DESCRIPTION = [
  'A filter AST node: `{ "and": [node, …] }`, `{ "or": [node, …] }`, `{ "not": node }` or a condition `{ "field": api_name, "op": op, "value"? }`.',
  'Ops by type: text-like `eq neq contains not_contains starts_with ends_with is_any_of is_none_of is_empty is_not_empty` (case-insensitive);',
  'numbers `eq neq gt gte lt lte is_any_of is_none_of is_empty is_not_empty`; checkbox `eq neq` (unchecked is `false`);',
  'date/datetime `eq neq before after on_or_before on_or_after within is_empty is_not_empty` with a day `"YYYY-MM-DD"`, an instant (datetime),',
  'or `{ "relative": "today"|"tomorrow"|"yesterday"|"one_week_ago"|…, "tz"? }`; `within` takes `{ "from", "to" }` or `{ "relative": "past_week"|"next_month"|…, "tz"?, "days"? }`;',
  'single select and user `eq neq is_any_of is_none_of is_empty is_not_empty` (option id or exact label; user id or `"me"`);',
  'multi select `has_any_of has_all_of has_none_of eq is_empty is_not_empty`. Negative ops match empty cells; comparisons never do.',
  'Through links (relations plugin): `"field": "link.field"` and lookups test the linked records with that field\'s ops (some linked record matches;',
  'negative ops and `is_empty`: none does); a link field itself takes `has_any_of has_all_of has_none_of` (record ids), `is_empty`, `is_not_empty`; `count` fields are numbers.',
  'Rollups are tested on their value: `count`/`sum`/`avg` as numbers, `min`/`max`/`earliest`/`latest` with the ops of the field they read, `concat` as text; `unique` like a lookup.',
  `At most 8 levels deep and 200 conditions. Every mistake → 422 with a pointer.`,
].join(' ');

/** The filter AST as the OpenAPI document shows it (the filter compiler checks it, reporting each mistake at its pointer). */
const FILTER_DOC = {
  ref: 'Filter',
  schemas: {
    Filter: {
      description: 'A filter AST node.',
      oneOf: [
        { type: 'object', title: 'and', required: ['and'], additionalProperties: false, properties: { and: { type: 'array', items: { $ref: '#/components/schemas/Filter' } } } },
        { type: 'object', title: 'or', required: ['or'], additionalProperties: false, properties: { or: { type: 'array', items: { $ref: '#/components/schemas/Filter' } } } },
        { type: 'object', title: 'not', required: ['not'], additionalProperties: false, properties: { not: { $ref: '#/components/schemas/Filter' } } },
        { $ref: '#/components/schemas/FilterCondition' },
      ],
      example: { and: [{ field: 'status', op: 'eq', value: 'Open' }, { field: 'amount', op: 'gte', value: 100 }] },
    },
    FilterCondition: {
      type: 'object',
      title: 'condition',
      required: ['field', 'op'],
      additionalProperties: false,
      properties: {
        field: { type: 'string', description: 'api_name of a field, or `link.field` through a link field.' },
        op: { type: 'string', enum: [...FILTER_OPS] },
        value: { description: 'What the op compares with; absent for `is_empty` and `is_not_empty`.' },
      },
    },
  },
};

/** A filter AST in a request body: an object, checked by the filter compiler (FILTER_DESCRIPTION). */
export const FilterNode = documented(Type.Object({}, { additionalProperties: true, description: FILTER_DESCRIPTION }), FILTER_DOC);

export const Sort = Type.Object(
  {
    field: Type.String({ minLength: 1, description: 'api_name of the field.' }),
    direction: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'asc' })),
  },
  { additionalProperties: false },
);

export const RecordQuery = Type.Object(
  {
    filter: Type.Optional(FilterNode),
    sorts: Type.Optional(Type.Array(Sort, { maxItems: 5, description: 'Up to 5 keys; empty cells last in both directions; `id` breaks ties. None: manual order. A link sorts by its first linked title, a lookup by its first value, a rollup by its value.' })),
    q: Type.Optional(Q),
    view_id: Type.Optional(ViewId),
    fields: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 500, uniqueItems: true, description: 'api_names of the fields to return (default: all).' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'Page size (1–1000, default 50).' })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: '`next_cursor` of the previous page of the same query (another filter, sorts, q or view_id → 422).' })),
    count: Type.Optional(
      Type.Union([Type.Literal('exact'), Type.Literal('estimate')], {
        description: '`exact`: counted, up to 10,000 (`count_exact: false` beyond); `estimate`: the query planner\'s estimate, no rows read.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RecordQuery = Static<typeof RecordQuery>;

const VALUES_OUT = 'Every live field by `api_name` (null when empty), system fields included.';

export const ApiRecord = Type.Object({
  id: Uuid(),
  number: Type.Integer({ description: 'Per database, from 1, never reused.' }),
  values: documented(Type.Record(Type.String(), Type.Unknown(), { description: VALUES_OUT }), ({ resolve }) => valuesDoc(VALUES_OUT, resolve('databases.fieldTypes'))),
  position: Type.String({ description: 'Fractional index of the manual order (compare as bytes).' }),
  version: Type.Integer({ description: 'Bumped by every update; send it back in PATCH to detect concurrent edits.' }),
  created_at: Timestamp,
  created_by: Type.Union([Uuid(), Type.Null()]),
  updated_at: Timestamp,
  updated_by: Type.Union([Uuid(), Type.Null()]),
});
export type ApiRecord = Static<typeof ApiRecord>;

export const QueryPage = Type.Object({
  data: Type.Array(ApiRecord),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Send as `cursor` with the same query for the next page; null on the last page.' }),
  count: Type.Optional(Type.Integer({ description: 'Only when `count` was asked: records matching the query (all pages).' })),
  count_exact: Type.Optional(Type.Boolean({ description: 'false for an estimate, or an exact count that reached its cap of 10,000.' })),
});
export type QueryPage = Static<typeof QueryPage>;

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
  code: Type.Union([Type.Literal('not_found'), Type.Literal('validation_failed'), Type.Literal('field_read_only'), Type.Literal('link_conflict')], {
    description:
      '`link_conflict`: a link cell clashes with other records (a one-to-many record linked elsewhere); `field_read_only`: every value refused is for a read-only field (computed, system, or synced by a source).',
  }),
  detail: Type.String(),
});
export type RecordError = Static<typeof RecordError>;

export const TrashedRecord = Type.Composite([ApiRecord, Type.Object({ deleted_at: Timestamp })]);
export type TrashedRecord = Static<typeof TrashedRecord>;
