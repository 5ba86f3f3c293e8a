/** Who is calling. Strategies (sessions, PATs, inbound hooks, OAuth) are plugins tapping `auth.authenticate`. */
export type TokenScope = 'read' | 'write' | 'admin';

export interface PrincipalUser {
  id: string;
  email: string;
  name: string;
  is_instance_admin: boolean;
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
