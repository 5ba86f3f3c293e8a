import { Type, type Static } from '../../core/schema.ts';
import { pageQuery } from '../../core/pagination.ts';

const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });

export const WorkspaceParams = Type.Object({ ws: Uuid('Workspace id') });
export const RecordParams = Type.Object({ ws: Uuid('Workspace id'), db: Uuid('Database id'), id: Uuid('Record id') });

/** The kinds of entry the plugin writes. */
export const ENTRY_TYPES = [
  'record.created',
  'record.updated',
  'record.deleted',
  'record.restored',
  'records.created',
  'comment.created',
  'comment.updated',
  'comment.deleted',
  'description.updated',
  'field.created',
  'field.updated',
  'field.deleted',
  'field.restored',
] as const;
export type EntryType = (typeof ENTRY_TYPES)[number];

export const ORIGIN_TYPES = ['user', 'token', 'automation', 'public_form', 'import', 'restore', 'sync'] as const;

export const Change = Type.Object({
  field: Type.Union([Uuid(), Type.Null()], { description: 'The field id; null for a comment or a description.' }),
  name: Type.String({ description: "The field's name when the change was made (`comment`, `description` for those)." }),
  before: Type.Unknown({ description: 'The value before (as records show it; plain text for comments and descriptions); null when there was none.' }),
  after: Type.Unknown({ description: 'The value after; null when there is none.' }),
});

export const Entry = Type.Object({
  id: Uuid(),
  type: Type.Unsafe<EntryType>({ type: 'string', enum: [...ENTRY_TYPES] }),
  actor: Type.Union([Type.Object({ id: Uuid(), name: Type.String({ description: 'Their current name.' }) }), Type.Null()], {
    description: 'Who made the change; null for a public form, an erased member or a deleted account.',
  }),
  workspace_id: Uuid(),
  database_id: Uuid(),
  record_id: Type.Union([Uuid(), Type.Null()], { description: 'Null for field changes.' }),
  changes: Type.Array(Change, {
    description:
      'Record updates: each field whose value changed (creations, deletions and restores list none: the values a record was created with are its first version); field changes: the field as `{ name, api_name, type }` before and after. ' +
      'Cells of fields that reach a database the caller cannot see are left out.',
  }),
  origin: Type.Object({
    type: Type.Unsafe<(typeof ORIGIN_TYPES)[number]>({ type: 'string', enum: [...ORIGIN_TYPES] }),
    id: Type.Union([Uuid(), Type.Null()], { description: 'The user, token, automation, form view, import or sync run behind the change.' }),
    restored_from: Type.Optional(Type.Integer({ description: 'For `restore`: the record version written back.' })),
  }),
  created_at: Type.String({ format: 'date-time' }),
});
export type Entry = Static<typeof Entry>;

export const RecordActivityQuery = pageQuery();

export const WorkspaceActivityQuery = Type.Composite([
  pageQuery(),
  Type.Object({
    database_id: Type.Optional(Uuid('Only entries of this database.')),
    actor_id: Type.Optional(Uuid('Only entries made by this user.')),
    type: Type.Optional(Type.Unsafe<EntryType>({ type: 'string', enum: [...ENTRY_TYPES], description: 'Only entries of this type.' })),
  }),
]);
export type WorkspaceActivityQuery = Static<typeof WorkspaceActivityQuery>;

export const ActivityOptions = Type.Object(
  {
    retentionDays: Type.Integer({ minimum: 1, default: 365, description: 'Entries older than this many days are purged by a daily job.' }),
  },
  { additionalProperties: false },
);
export type ActivityOptions = Static<typeof ActivityOptions>;
