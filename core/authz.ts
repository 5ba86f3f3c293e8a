import { forbidden, notFound } from './errors.ts';
import { isUser, type Principal, type UserPrincipal } from './principal.ts';
import { atLeast, strongest, weakest, SCOPE_CEILING, type Role } from './roles.ts';
import type { KernelHooks } from './hooks.ts';
import type { Db } from './db.ts';
import type { CacheSignals, LocalCache } from './cache.ts';

/** A place inside a workspace that can carry roles of its own: a space, a database. */
export interface ScopeNode {
  type: string;
  id: string;
}

export function nodeKey(node: ScopeNode): string {
  return `${node.type}:${node.id}`;
}

/**
 * What one user holds in one workspace, assembled by the plugins tapping
 * `auth.workspaceAccess`: its `membership` phase gives `role` and guests' spaces, its `grants` phase raises `nodeRoles`.
 */
export interface WorkspaceAccess {
  readonly workspaceId: string;
  readonly userId: string;
  /** The workspace-wide role; null for a non-member. */
  role: Role | null;
  /** Roles held on nodes, keyed by `nodeKey`. */
  readonly nodeRoles: Map<string, Role>;
}

/**
 * The cache topic (core/cache.ts) of everything `auth.workspaceAccess` answers, keyed by
 * workspace id: a plugin that feeds it puts a trigger calling
 * `tessera_signal_cache('access', 'workspace_id')` on the tables its answer comes from.
 */
export const ACCESS_TOPIC = 'access';

/** Where a resource sits, as answered by the plugin that owns its type (`auth.locate`). */
export interface Location {
  /** Enclosing scope nodes, outermost first, the resource itself included when it is one. */
  path: ScopeNode[];
  /** Who created it, for rules like "its creator or an admin". */
  createdBy?: string | null;
}

export interface LocateRequest {
  workspaceId: string;
  id: string;
  /** Run inside this transaction; with `lock`, hold the row so it cannot be deleted until commit. */
  trx?: Db;
  lock?: boolean;
}

/** Which resource a route acts on, and what it takes. */
export interface AccessRule {
  /** The weakest effective role allowed. */
  role: Role;
  /** Path parameter holding the workspace id; default `ws`. */
  workspaceParam?: string;
  /** The resource named by a path parameter; its location decides the effective role. */
  resource?: { type: string; param: string };
  /** The resource's own creator is allowed with this role (e.g. "its creator or an admin"). */
  creatorRole?: Role;
}

/** The outcome of a passed check, handed to the handler. */
export interface AccessGrant {
  workspaceId: string;
  /** Effective role where the route acts (PAT scope applied). */
  role: Role;
  /** The caller's workspace-wide membership role, as stored. */
  memberRole: Role;
  access: WorkspaceAccess;
  location: Location | null;
}

/**
 * The one place permissions are decided. Plugins feed it facts through hooks
 * (`auth.workspaceAccess`, `auth.locate`) and ask it questions; no handler compares roles itself.
 */
export class Authz {
  private readonly accessCache: LocalCache<WorkspaceAccess>;

  constructor(private readonly hooks: KernelHooks, caches: CacheSignals) {
    this.accessCache = caches.create('authz.access', { topics: { [ACCESS_TOPIC]: 'group' } });
  }

  /**
   * Membership and grants of the principal's user in a workspace. A PAT sees only its own workspace.
   * Outside a transaction the answer comes from the process cache, kept true by `access` signals;
   * inside one (a writer that locked rows) it is read afresh.
   */
  async workspaceAccess(principal: Principal, workspaceId: string, trx?: Db): Promise<WorkspaceAccess> {
    const userId = isUser(principal) ? principal.user.id : '';
    const blank = (): WorkspaceAccess => ({ workspaceId, userId, role: null, nodeRoles: new Map() });
    if (!isUser(principal)) return blank();
    if (principal.kind === 'pat' && principal.workspaceId !== workspaceId) return blank();
    if (trx) return this.accessOf(blank(), trx);
    return this.accessCache.get(workspaceId, userId, () => this.accessOf(blank(), undefined));
  }

  /** Where a resource of `type` sits in a workspace; null when it is not there (or no plugin knows the type). */
  async locate(type: string, req: LocateRequest): Promise<Location | null> {
    const hook = this.hooks.auth.locate.get(type);
    if (!hook) return null;
    return (await hook.promise(req)) ?? null;
  }

  /** The principal's effective role at `path`; null means it cannot see what is there. */
  roleAt(principal: Principal, access: WorkspaceAccess, path: ScopeNode[] = []): Role | null {
    if (!isUser(principal)) return null;
    const role = memberRoleAt(access, path);
    return role && principal.kind === 'pat' ? weakest(role, SCOPE_CEILING[principal.scope]) : role;
  }

  /**
   * Whether a user, as a member (no token), can see what is at `path`, read in `trx`: for
   * decisions about someone other than the caller, e.g. after their membership changed.
   */
  async userCanSee(userId: string, workspaceId: string, path: ScopeNode[], trx?: Db): Promise<boolean> {
    const access = await this.accessOf({ workspaceId, userId, role: null, nodeRoles: new Map() }, trx);
    return memberRoleAt(access, path) !== null;
  }

  /** `auth.workspaceAccess`: membership first, then grants on top of it. */
  private async accessOf(blank: WorkspaceAccess, trx: Db | undefined): Promise<WorkspaceAccess> {
    const phases = this.hooks.auth.workspaceAccess;
    return phases.grants.promise(await phases.membership.promise(blank, trx), trx);
  }

  /** Whether the caller can see the resource of `type` with `id` (located by `auth.locate`; one it cannot find, it cannot see). */
  async seesResource(principal: Principal, access: WorkspaceAccess, type: string, id: string, trx?: Db): Promise<boolean> {
    const location = await this.locate(type, { workspaceId: access.workspaceId, id, trx });
    return !!location && this.canSee(principal, access, location.path);
  }

  /**
   * Whether the caller holds `need` on the resource of `type` with `id`: `unseen` when it is not there or the
   * caller cannot see it, `weaker` when it sees it with a weaker role, `held` otherwise. For services that check
   * several resources named in one body and answer each at its pointer.
   */
  async holds(principal: Principal, access: WorkspaceAccess, type: string, id: string, need: Role, trx?: Db): Promise<'unseen' | 'weaker' | 'held'> {
    const location = await this.locate(type, { workspaceId: access.workspaceId, id, trx });
    const role = location && this.roleAt(principal, access, location.path);
    if (!role) return 'unseen';
    return atLeast(role, need) ? 'held' : 'weaker';
  }

  /**
   * The resources of `type` among `rows` the caller can see, where `auth.locate` puts each (a guest's spaces,
   * grants, a token's scope): the one filter for "which of these may the caller know of". Outside a
   * transaction the locations come from the locators' process caches.
   */
  async visible<T extends { id: string }>(principal: Principal, access: WorkspaceAccess, type: string, rows: T[], trx?: Db): Promise<T[]> {
    const seen = await this.seenIds(principal, access, type, rows.map((row) => row.id), trx);
    return rows.filter((row) => seen.has(row.id));
  }

  /** The same filter over bare ids: those among `ids` the caller can see. */
  async seenIds(principal: Principal, access: WorkspaceAccess, type: string, ids: string[], trx?: Db): Promise<Set<string>> {
    const seen = await Promise.all(ids.map((id) => this.seesResource(principal, access, type, id, trx)));
    return new Set(ids.filter((_, i) => seen[i]));
  }

  /**
   * The same rule as a SQL filter can take it, for a list of spaces or databases: `all` when the caller sees
   * the whole workspace, else the spaces and databases it holds a role on (a guest's spaces, grants).
   */
  visibleScopes(principal: Principal, access: WorkspaceAccess): 'all' | { spaces: string[]; databases: string[] } {
    if (this.canSee(principal, access, [{ type: 'space', id: '' }, { type: 'database', id: '' }])) return 'all';
    const held = (type: string) => [...access.nodeRoles.keys()].filter((k) => k.startsWith(`${type}:`)).map((k) => k.slice(type.length + 1));
    return { spaces: held('space').filter((id) => this.canSee(principal, access, [{ type: 'space', id }])), databases: held('database') };
  }

  /** Whether the caller can see what is at `path` (for filtering lists). */
  canSee(principal: Principal, access: WorkspaceAccess, path: ScopeNode[]): boolean {
    return this.roleAt(principal, access, path) !== null;
  }

  /**
   * Checks a rule: 404 when the workspace or resource is invisible to the caller (never
   * revealing that it exists), 403 when visible but the role is too weak.
   */
  async require(principal: Principal, workspaceId: string, rule: AccessRule, resourceId?: string): Promise<AccessGrant> {
    if (!isUser(principal)) throw notFound();
    // Independent lookups: side by side (on PostgreSQL, two pooled connections) rather than one after the other.
    const [access, location] = await Promise.all([
      this.workspaceAccess(principal, workspaceId),
      rule.resource ? this.locate(rule.resource.type, { workspaceId, id: resourceId ?? '' }) : null,
    ]);
    const memberRole = access.role;
    if (memberRole === null) throw notFound();
    if (rule.resource && !location) throw notFound();
    const role = this.roleAt(principal, access, location?.path);
    if (role === null) throw notFound();
    if (!atLeast(role, rule.role) && !this.isCreatorAllowed(principal, rule, location, role)) {
      throw forbidden(describeShortfall(principal, rule.role, role));
    }
    return { workspaceId, role, memberRole, access, location };
  }

  /** Like `require` for a role decided at run time (e.g. by what the body asks for). */
  demand(principal: Principal, grant: AccessGrant, need: Role, path?: ScopeNode[]): Role {
    const role = path ? this.roleAt(principal, grant.access, path) : grant.role;
    if (role === null) throw notFound();
    if (!atLeast(role, need)) throw forbidden(describeShortfall(principal, need, role));
    return role;
  }

  private isCreatorAllowed(principal: UserPrincipal, rule: AccessRule, location: Location | null, role: Role): boolean {
    return !!rule.creatorRole && !!location?.createdBy && location.createdBy === principal.user.id && atLeast(role, rule.creatorRole);
  }
}

/** A member's role at `path` from their access, before any token scope. */
function memberRoleAt(access: WorkspaceAccess, path: ScopeNode[]): Role | null {
  if (access.role === null) return null;
  // A guest holds nothing workspace-wide beyond seeing the workspace; its spaces come as node roles.
  let role: Role | null = access.role === 'guest' ? (path.length === 0 ? 'guest' : null) : access.role;
  for (const node of path) role = strongest(role, access.nodeRoles.get(nodeKey(node)));
  return role;
}

function describeShortfall(principal: Principal, need: Role, have: Role): string {
  if (principal.kind === 'pat' && !atLeast(SCOPE_CEILING[principal.scope], need)) {
    return `This token's scope "${principal.scope}" does not allow this; it needs the "${need}" role.`;
  }
  return `This needs the "${need}" role; you have "${have}" here.`;
}
