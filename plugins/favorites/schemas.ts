import { Type, type Static } from '../../core/schema.ts';
import { pageQuery } from '../../core/pagination.ts';

/** What can be starred. */
export const TARGET_TYPES = ['record', 'database'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const TargetTypeSchema = Type.Unsafe<TargetType>({ type: 'string', enum: [...TARGET_TYPES], description: 'What is starred: a `record` or a `database`.' });

export const WorkspaceParams = Type.Object({ ws: Uuid('Workspace id') });
export const FavoriteParams = Type.Object({ ws: Uuid('Workspace id'), id: Uuid('Favorite id') });

export const Favorite = Type.Object({
  id: Uuid(),
  workspace_id: Uuid(),
  target_type: TargetTypeSchema,
  target_id: Uuid('The record or database starred'),
  database_id: Uuid('The database starred, or the one holding the record'),
  title: Type.Union([Type.String(), Type.Null()], {
    description: "The database's name, or the record's title cell as plain text (as CSV writes it); null when the title cell is empty.",
  }),
  created_at: Type.String({ format: 'date-time', description: 'When it was starred.' }),
});
export type Favorite = Static<typeof Favorite>;

export const PutFavoriteBody = Type.Object(
  {
    target_type: TargetTypeSchema,
    target_id: Uuid('A record or database of this workspace that the caller can see'),
  },
  { additionalProperties: false },
);
export type PutFavoriteBody = Static<typeof PutFavoriteBody>;

export const FavoriteQuery = Type.Composite([pageQuery(), Type.Object({ target_type: Type.Optional(TargetTypeSchema) })]);
export type FavoriteQuery = Static<typeof FavoriteQuery>;
