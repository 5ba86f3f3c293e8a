import { Type, type Static } from '../../core/schema.ts';

/** Folders nest at most this deep: a top-level folder is at depth 1. */
export const MAX_FOLDER_DEPTH = 10;

const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const Timestamp = Type.String({ format: 'date-time' });
export const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Not blank; surrounding spaces are trimmed.' });
export const Description = Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()]);
const ParentId = Type.Union([Uuid(), Type.Null()], {
  description: `A folder of the same space, or null for the top level. Folders nest at most ${MAX_FOLDER_DEPTH} deep.`,
});

export const WorkspaceParams = Type.Object({ ws: Uuid('Workspace id') });
export const SpaceParams = Type.Object({ ws: Uuid('Workspace id'), id: Uuid('Space id') });
export const FolderParams = Type.Object({ ws: Uuid('Workspace id'), id: Uuid('Folder id') });

export const Space = Type.Object({
  id: Uuid(),
  workspace_id: Uuid(),
  name: Type.String(),
  description: Description,
  created_by: Type.Union([Uuid(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Space = Static<typeof Space>;

export const CreateSpaceBody = Type.Object({ name: Name, description: Type.Optional(Description) }, { additionalProperties: false });
export type CreateSpaceBody = Static<typeof CreateSpaceBody>;

export const PatchSpaceBody = Type.Object(
  { name: Type.Optional(Name), description: Type.Optional(Description) },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchSpaceBody = Static<typeof PatchSpaceBody>;

export const Folder = Type.Object({
  id: Uuid(),
  workspace_id: Uuid(),
  space_id: Uuid(),
  parent_id: Type.Union([Uuid(), Type.Null()]),
  name: Type.String(),
  created_by: Type.Union([Uuid(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Folder = Static<typeof Folder>;

export const CreateFolderBody = Type.Object({ name: Name, parent_id: Type.Optional(ParentId) }, { additionalProperties: false });
export type CreateFolderBody = Static<typeof CreateFolderBody>;

export const PatchFolderBody = Type.Object(
  { name: Type.Optional(Name), parent_id: Type.Optional(ParentId) },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchFolderBody = Static<typeof PatchFolderBody>;
