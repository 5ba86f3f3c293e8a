import type { TokenScope } from './principal.ts';

/** Workspace roles, weakest first. A guest is a member confined to the spaces it was given. */
export const ROLES = ['guest', 'member', 'editor', 'creator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Roles a grant on a space or database may confer. */
export const GRANT_ROLES = ['member', 'editor', 'creator'] as const;
export type GrantRole = (typeof GRANT_ROLES)[number];

const RANK: Record<Role, number> = { guest: 1, member: 2, editor: 3, creator: 4, admin: 5 };

export function atLeast(have: Role | null, need: Role): boolean {
  return have !== null && RANK[have] >= RANK[need];
}

export function strongest(a: Role | null, b: Role | null | undefined): Role | null {
  if (!b) return a;
  if (!a) return b;
  return RANK[a] >= RANK[b] ? a : b;
}

export function weakest(a: Role, b: Role): Role {
  return RANK[a] <= RANK[b] ? a : b;
}

/**
 * The most a personal access token of each scope may do, whatever its owner's role:
 * `read` reads, `write` changes content and schema, `admin` also manages the workspace.
 */
export const SCOPE_CEILING: Record<TokenScope, Role> = { read: 'member', write: 'creator', admin: 'admin' };
