import { Type, type Static } from '../../core/schema.ts';
import { pageQuery } from '../../core/pagination.ts';

const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });

export const RecordParams = Type.Object({ ws: Uuid('Workspace id'), db: Uuid('Database id'), id: Uuid('Record id') });
export const VersionParams = Type.Object({
  ws: Uuid('Workspace id'),
  db: Uuid('Database id'),
  id: Uuid('Record id'),
  v: Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'The version number.' }),
});

export const VersionListQuery = pageQuery();

export const Version = Type.Object({
  version: Type.Integer({ description: 'Per record, from 1.' }),
  values: Type.Record(Type.String(), Type.Unknown(), {
    description:
      'The writable cells (links included) as records read them, keyed by the field\'s current `api_name`. Fields deleted since, ' +
      'fields created since, and fields reaching a database the caller cannot see are left out.',
  }),
  changed_fields: Type.Array(Type.String(), { description: 'The `api_name`s of the cells this write changed (for a creation: those given a value).' }),
  created_at: Type.String({ format: 'date-time' }),
  created_by: Type.Union([Uuid(), Type.Null()], { description: 'The user who wrote it; null for a public form or an erased member.' }),
  origin: Type.Object({
    type: Type.String({ description: '`user`, `token`, `automation`, `public_form`, `import`, `restore` or `sync`.' }),
    id: Type.Union([Uuid(), Type.Null()]),
    restored_from: Type.Optional(Type.Integer({ description: 'For `restore`: the version written back.' })),
  }),
});
export type Version = Static<typeof Version>;

export const RestoreBody = Type.Object(
  {
    fields: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        minItems: 1,
        maxItems: 500,
        uniqueItems: true,
        description: 'Only these fields (api_name or id); all the version holds otherwise.',
      }),
    ),
    dry_run: Type.Optional(Type.Boolean({ description: 'Answer what would change and write nothing.' })),
  },
  { additionalProperties: false },
);
export type RestoreBody = Static<typeof RestoreBody>;

export const RestoreChanges = Type.Object({
  changes: Type.Array(
    Type.Object({
      field: Type.String({ description: 'The field\'s current `api_name`.' }),
      before: Type.Unknown({ description: 'The cell now.' }),
      after: Type.Unknown({ description: 'The cell in the version.' }),
    }),
  ),
});
export type RestoreChanges = Static<typeof RestoreChanges>;

export const RecordVersionsOptions = Type.Object(
  {
    retentionDays: Type.Integer({ minimum: 1, default: 365, description: 'Versions older than this many days are purged by a daily job (never the newest of a record).' }),
  },
  { additionalProperties: false },
);
export type RecordVersionsOptions = Static<typeof RecordVersionsOptions>;
