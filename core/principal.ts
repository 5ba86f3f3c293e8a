/** Who is calling. Strategies (sessions, PATs, inbound hooks, OAuth) are plugins tapping `auth.authenticate`. */
export type TokenScope = 'read' | 'write' | 'admin';

/**
 * The caller's user row as read by the authentication query: enough to answer `GET /me`
 * and to make permission decisions without a second round trip.
 */
export interface PrincipalUser {
  id: string;
  email: string;
  name: string;
  is_instance_admin: boolean;
  avatar_key: string | null;
  avatar_updated_at: Date | null;
  created_at: Date;
}

/** Columns an authentication query selects from `users AS u` to build a PrincipalUser. */
export const PRINCIPAL_USER_COLUMNS =
  'u.id AS user_id, u.email, u.name, u.is_instance_admin, u.avatar_key, u.avatar_updated_at, u.created_at AS user_created_at';

export interface PrincipalUserRow {
  user_id: string;
  email: string;
  name: string;
  is_instance_admin: boolean;
  avatar_key: string | null;
  avatar_updated_at: Date | null;
  user_created_at: Date;
}

export function principalUserOf(row: PrincipalUserRow): PrincipalUser {
  return {
    id: row.user_id,
    email: row.email,
    name: row.name,
    is_instance_admin: row.is_instance_admin,
    avatar_key: row.avatar_key,
    avatar_updated_at: row.avatar_updated_at,
    created_at: row.user_created_at,
  };
}

export type Principal =
  | { kind: 'anonymous' }
  | { kind: 'session'; user: PrincipalUser; sessionId: string }
  | {
      kind: 'pat';
      user: PrincipalUser;
      tokenId: string;
      workspaceId: string;
      scope: TokenScope;
      allowRunButton: boolean;
    }
  /** A credential that is not a user (inbound hook token, metrics token, ...). */
  | { kind: 'service'; name: string; attributes?: Record<string, unknown> };

export type UserPrincipal = Extract<Principal, { user: PrincipalUser }>;

export const ANONYMOUS: Principal = Object.freeze({ kind: 'anonymous' });

export function isUser(p: Principal): p is UserPrincipal {
  return p.kind === 'session' || p.kind === 'pat';
}

const SCOPE_RANK: Record<TokenScope, number> = { read: 1, write: 2, admin: 3 };

export function scopeAllows(have: TokenScope, need: TokenScope): boolean {
  return SCOPE_RANK[have] >= SCOPE_RANK[need];
}
