import { Type, type Static } from '../../core/schema.ts';
import { pageQuery } from '../../core/pagination.ts';

const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const Timestamp = Type.String({ format: 'date-time' });
export const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Not blank; surrounding spaces are trimmed.' });
export const Description = Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()]);

export const DatabaseParams = Type.Object({ ws: Uuid('Workspace id'), db: Uuid('Database id') });
export const WorkspaceParams = Type.Object({ ws: Uuid('Workspace id') });

export const Field = Type.Object({
  id: Uuid(),
  database_id: Uuid(),
  name: Type.String(),
  api_name: Type.String({ description: 'The key of this field in record `values`; stable, changes only when asked.' }),
  type: Type.String(),
  options: Type.Record(Type.String(), Type.Unknown()),
  is_title: Type.Boolean({ description: 'The field that names a record (in links, in `q` search).' }),
  read_only: Type.Boolean({ description: 'System and computed fields: values are never written through the API.' }),
  synced: Type.Boolean({ description: 'A source writes its values (the sources plugin): writes through the API are refused with `field_read_only`, as for a read-only field.' }),
  position: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Field = Static<typeof Field>;

export const ViewSummary = Type.Object({
  id: Uuid(),
  name: Type.String(),
  type: Type.String(),
  is_default: Type.Boolean(),
});
export type ViewSummary = Static<typeof ViewSummary>;

/**
 * The part of a view's stored `config` that record queries and view indexes read (the views
 * plugin writes it). Fields are named by id, so renaming an api_name leaves views intact.
 */
export interface ViewQuery {
  filter?: unknown;
  sorts?: Array<{ field: string; direction?: 'asc' | 'desc' }>;
  /** Who asks for it when it is not a view's (`pin`, `queries`: the indexes plugin), for what `GET …/indexes` says. */
  by?: string;
}

const databaseFields = {
  id: Uuid(),
  workspace_id: Uuid(),
  space_id: Uuid(),
  folder_id: Type.Union([Uuid(), Type.Null()]),
  name: Type.String(),
  description: Description,
  created_by: Type.Union([Uuid(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const DatabaseSummary = Type.Object(databaseFields);
export type DatabaseSummary = Static<typeof DatabaseSummary>;

export const Database = Type.Object({
  ...databaseFields,
  fields: Type.Array(Field, { description: 'Live fields in display order, the title field first.' }),
  views: Type.Array(ViewSummary),
});
export type Database = Static<typeof Database>;

export const CreateDatabaseBody = Type.Object(
  {
    name: Name,
    space_id: Uuid('The space it lives in; needs the `creator` role there.'),
    folder_id: Type.Optional(Type.Union([Uuid('A folder of that space.'), Type.Null()])),
    description: Type.Optional(Description),
  },
  { additionalProperties: false },
);
export type CreateDatabaseBody = Static<typeof CreateDatabaseBody>;

export const PatchDatabaseBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    folder_id: Type.Optional(Type.Union([Uuid('A folder of its space, or null for the space itself.'), Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchDatabaseBody = Static<typeof PatchDatabaseBody>;

export const DeleteDatabaseBody = Type.Object(
  { confirm: Type.String({ description: "The database's name, exactly: deleting is permanent." }) },
  { additionalProperties: false },
);

export const DatabaseListQuery = Type.Composite([
  pageQuery(),
  Type.Object({ space_id: Type.Optional(Uuid('Only databases of this space.')) }),
]);
export type DatabaseListQuery = Static<typeof DatabaseListQuery>;
