import { Type, type Static } from '../../core/schema.ts';
import { ROLES, type Role } from '../../core/roles.ts';

export const RoleSchema = Type.Unsafe<Role>({
  type: 'string',
  enum: [...ROLES],
  description: 'Workspace role, strongest first: `admin`, `creator`, `editor`, `member`, `guest` (only inside its `space_ids`).',
});

export const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
export const Timestamp = Type.String({ format: 'date-time' });
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Not blank; surrounding spaces are trimmed.' });
const Description = Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()]);

export const SpaceIds = Type.Array(Uuid(), {
  maxItems: 500,
  uniqueItems: true,
  description: 'Spaces of this workspace a guest may enter; required and non-empty for `guest`, empty for every other role.',
});

export const WorkspaceParams = Type.Object({ ws: Uuid('Workspace id') });
export const MemberParams = Type.Object({ ws: Uuid('Workspace id'), user_id: Uuid('The member\'s user id') });

export const Workspace = Type.Object({
  id: Uuid(),
  name: Type.String(),
  description: Description,
  role: RoleSchema,
  created_by: Type.Union([Uuid(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Workspace = Static<typeof Workspace>;

export const CreateWorkspaceBody = Type.Object(
  { name: Name, description: Type.Optional(Description) },
  { additionalProperties: false },
);
export type CreateWorkspaceBody = Static<typeof CreateWorkspaceBody>;

export const PatchWorkspaceBody = Type.Object(
  { name: Type.Optional(Name), description: Type.Optional(Description) },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchWorkspaceBody = Static<typeof PatchWorkspaceBody>;

export const Member = Type.Object({
  user_id: Uuid(),
  email: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  space_ids: Type.Array(Uuid()),
  joined_at: Timestamp,
});
export type Member = Static<typeof Member>;

export const PatchMemberBody = Type.Object(
  { role: Type.Optional(RoleSchema), space_ids: Type.Optional(SpaceIds) },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchMemberBody = Static<typeof PatchMemberBody>;
