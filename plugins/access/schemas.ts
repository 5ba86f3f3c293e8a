import { Type, type Static } from '../../core/schema.ts';
import { pageQuery } from '../../core/pagination.ts';
import { GRANT_ROLES, type GrantRole } from '../../core/roles.ts';

/** What a grant can be on. */
export const SCOPE_TYPES = ['space', 'database'] as const;
export type ScopeType = (typeof SCOPE_TYPES)[number];

const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const Timestamp = Type.String({ format: 'date-time' });
const ScopeTypeSchema = Type.Unsafe<ScopeType>({ type: 'string', enum: [...SCOPE_TYPES], description: 'What the grant is on: a `space` or a `database`.' });
const GrantRoleSchema = Type.Unsafe<GrantRole>({
  type: 'string',
  enum: [...GRANT_ROLES],
  description: 'The role on the scope: `creator`, `editor` or `member`. It raises, never lowers, what the workspace role gives.',
});

export const WorkspaceParams = Type.Object({ ws: Uuid('Workspace id') });
export const GrantParams = Type.Object({ ws: Uuid('Workspace id'), id: Uuid('Grant id') });

export const Grant = Type.Object({
  id: Uuid(),
  workspace_id: Uuid(),
  scope_type: ScopeTypeSchema,
  scope_id: Uuid(),
  user_id: Uuid(),
  role: GrantRoleSchema,
  created_by: Type.Union([Uuid(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Grant = Static<typeof Grant>;

export const PutGrantBody = Type.Object(
  {
    scope_type: ScopeTypeSchema,
    scope_id: Uuid('A space or database of this workspace'),
    user_id: Uuid('A member of this workspace'),
    role: GrantRoleSchema,
  },
  { additionalProperties: false },
);
export type PutGrantBody = Static<typeof PutGrantBody>;

export const GrantQuery = Type.Composite([
  pageQuery(),
  Type.Object({
    scope_type: Type.Optional(ScopeTypeSchema),
    scope_id: Type.Optional(Uuid('Only grants on this space or database')),
    user_id: Type.Optional(Uuid('Only grants of this user')),
  }),
]);
export type GrantQuery = Static<typeof GrantQuery>;
