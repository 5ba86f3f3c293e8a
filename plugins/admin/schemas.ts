import { Type, type Static } from '../../core/schema.ts';
import { PageQuery, pageOf } from '../../core/pagination.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });

export const PluginFailure = Type.Object({
  phase: Type.Union(['register', 'migrate', 'boot', 'dependency'].map((p) => Type.Literal(p)), {
    description: '`dependency`: disabled because a plugin it requires failed.',
  }),
  message: Type.String(),
});

export const PluginStatus = Type.Object({
  id: Type.String(),
  version: Type.String(),
  enabled: Type.Boolean({ description: 'Whether the configuration turns it on.' }),
  state: Type.Union([Type.Literal('active'), Type.Literal('disabled'), Type.Literal('failed')]),
  failure: Type.Union([PluginFailure, Type.Null()]),
});
export type PluginStatus = Static<typeof PluginStatus>;

export const PluginList = pageOf(PluginStatus);

export const IdParams = Type.Object({ id: Uuid });

const search = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });

export const UserListQuery = Type.Object({
  ...PageQuery.properties,
  q: Type.Optional(search('Case-insensitive substring of the email or the name.')),
  disabled: Type.Optional(Type.Boolean({ description: '`true`: only disabled users; `false`: only enabled ones.' })),
});
export type UserListQuery = Static<typeof UserListQuery>;

export const AdminUser = Type.Object({
  id: Uuid,
  email: Type.String(),
  name: Type.String(),
  is_instance_admin: Type.Boolean(),
  disabled: Type.Boolean(),
  disabled_at: Type.Union([Timestamp, Type.Null()]),
  email_status: Type.Union([Type.Literal('ok'), Type.Literal('bouncing'), Type.Literal('complained')], {
    description: '`bouncing` once the mail provider reported a permanent bounce, `complained` once its owner marked our mail as spam (the integration-mail-bounces provider): notification digests are not sent then.',
  }),
  created_at: Timestamp,
  workspace_count: Type.Union([Type.Integer(), Type.Null()], { description: 'Workspaces the user belongs to; null when the workspaces plugin is off.' }),
});
export type AdminUser = Static<typeof AdminUser>;

export const PatchUserBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Not blank; surrounding spaces are trimmed.' })),
    is_instance_admin: Type.Optional(Type.Boolean()),
    disabled: Type.Optional(Type.Boolean({ description: '`true` signs the user out everywhere and stops their tokens at once; `false` lets them sign in again.' })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchUserBody = Static<typeof PatchUserBody>;

export const WorkspaceListQuery = Type.Object({
  ...PageQuery.properties,
  q: Type.Optional(search('Case-insensitive substring of the name.')),
});
export type WorkspaceListQuery = Static<typeof WorkspaceListQuery>;

export const AdminWorkspace = Type.Object({
  id: Uuid,
  name: Type.String(),
  created_by: Type.Union([Uuid, Type.Null()]),
  created_at: Timestamp,
  member_count: Type.Integer(),
});
export type AdminWorkspace = Static<typeof AdminWorkspace>;

const Count = Type.Integer({ minimum: 0 });

export const Stats = Type.Object({
  users: Type.Object({
    total: Count,
    disabled: Count,
    instance_admins: Type.Integer({ minimum: 0, description: 'Enabled users with the instance-admin flag.' }),
  }),
  sessions: Type.Object({ active: Type.Integer({ minimum: 0, description: 'Sessions not yet expired.' }) }),
  tokens: Type.Object({ total: Count }),
  workspaces: Type.Union([Type.Object({ total: Count }), Type.Null()], { description: 'null when the workspaces plugin is off.' }),
  plugins: Type.Object({ active: Count, disabled: Count, failed: Count }),
  database: Type.Object({ kind: Type.Union([Type.Literal('postgres'), Type.Literal('pglite')]) }),
});
export type Stats = Static<typeof Stats>;
