import type { Db } from '../../core/db.ts';
import type { TSchema } from '../../core/schema.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { AccessGrant } from '../../core/authz.ts';
import { AsyncSeriesBailHook, AsyncSeriesWaterfallHook, HookMap, SyncWaterfallHook } from '../../core/hooks.ts';
import type { ExportRefs, InstallRefs } from './refs.ts';
import type { Pack } from './schemas.ts';

/** One resource of a pack: its local `ref` and what its owner puts beside it (other resources named by ref). */
export interface PackResource {
  ref: string;
  [property: string]: unknown;
}

/**
 * A kind of resource, declared by the plugin that owns it. The packs plugin orders kinds by `after`, validates each
 * resource with `schema` (the owner's) and decides on uninstall with `part`.
 */
export interface PackKind {
  kind: string;
  /** The plugin that owns the kind: a pack naming the kind needs it enabled. */
  plugin: string;
  /** Kinds a resource of this one names by ref: exported and installed before it, removed after it. */
  after: string[];
  /** One resource (its `ref` included), as the owner accepts it. */
  schema: TSchema;
  /**
   * `true`: lives and dies with what contains it (a field, a view or a sample record in its database): kept whenever
   * its container is kept. `false`: stands on its own inside its container (a database in a space).
   */
  part: boolean;
  /** Optional data (sample records): exported only when asked for by name in `include`. */
  optional?: boolean;
}

export interface ExportScope {
  spaceIds: string[];
  databaseIds: string[];
  /** The optional kinds asked for (`record`…). */
  include: string[];
}

export interface ExportRequest {
  trx: Db;
  actor: UserPrincipal;
  grant: AccessGrant;
  workspaceId: string;
  scope: ExportScope;
  /** Refs handed out so far (earlier kinds): `refs.ids('database')` are the databases being exported. */
  refs: ExportRefs;
}

/** Where an install puts what has no container of its own in the pack. */
export interface InstallTarget {
  /** The space named by `space_id`: the pack's spaces are merged into it. */
  spaceId?: string;
  /** A name for a space made when the pack has none and no `space_id` was given. */
  packName: string;
}

export interface InstallRequest {
  trx: Db;
  actor: UserPrincipal;
  grant: AccessGrant;
  workspaceId: string;
  resource: PackResource;
  /** JSON pointer of the resource in the pack (`/resources/field/3`). */
  pointer: string;
  /** The whole pack, for a tap that installs a kind together with what it owns (a database with its title field). */
  pack: Pack;
  target: InstallTarget;
  refs: InstallRefs;
  /** Kept for the length of one install: what taps share (a space made once for the databases of a pack without one). */
  memo: Map<string, unknown>;
}

/** What one install tap made: the id of the resource, and the containers it sits in (by kind and ref). */
export interface Installed {
  id: string;
  /** `reused`: the resource was mapped onto something that existed before (a space named by `space_id`). */
  action: 'create' | 'reuse';
  containers: Array<{ kind: string; ref: string }>;
  /** A secret made for the new resource (a webhook's signing secret): shown once in the install answer, never kept by the ledger. */
  secret?: string;
}

export interface StampRequest {
  db: Db;
  workspaceId: string;
  id: string;
  /** The ids of the resources of the same install it sits in (a record's database). */
  within: string[];
}

/** Once every resource is made: for what has to wait for all of them (links between sample records). */
export interface FinishRequest {
  trx: Db;
  actor: UserPrincipal;
  grant: AccessGrant;
  workspaceId: string;
  pack: Pack;
  refs: InstallRefs;
  memo: Map<string, unknown>;
}

/** A problem found by a `finish` tap, at its pointer in the pack. */
export interface PackProblem {
  pointer: string;
  detail: string;
}

export interface RemoveRequest {
  trx: Db;
  actor: UserPrincipal;
  grant: AccessGrant;
  workspaceId: string;
  id: string;
}

/**
 * `packs.kinds`: how every plugin owning a kind of resource takes part in export, install and uninstall. Keyed by kind;
 * the packs plugin itself knows no kind.
 */
export function createPackHooks() {
  return {
    /** Waterfall: each owner adds the kinds it owns. */
    kinds: new SyncWaterfallHook<[PackKind[]]>(['kinds']),
    /** Waterfall per kind: the resources of that kind in the scope, refs in place of ids, in a stable order. */
    export: new HookMap(() => new AsyncSeriesWaterfallHook<[PackResource[], ExportRequest]>(['resources', 'request'])),
    /**
     * Bail per kind: the owner makes one resource (through its own services, in the install's transaction) and says
     * what it made. A problem with the resource is thrown as an AppError whose pointers are relative to the resource.
     */
    install: new HookMap(() => new AsyncSeriesBailHook<[InstallRequest], Installed | undefined>(['request'])),
    /**
     * Waterfall per kind: a fingerprint of a resource as it is now, `null` once it is gone. The ledger keeps the one
     * taken at install; a different one at uninstall means someone changed it. Plugins holding things inside another's
     * resource add to it (the views of a database).
     */
    stamp: new HookMap(() => new AsyncSeriesWaterfallHook<[string | null, StampRequest]>(['stamp', 'request'])),
    /** Waterfall, once per install after every resource is made: each tap adds the problems it met. */
    finish: new AsyncSeriesWaterfallHook<[PackProblem[], FinishRequest]>(['problems', 'request']),
    /** Bail per kind: removes a resource with everything inside it; `true` once done. */
    remove: new HookMap(() => new AsyncSeriesBailHook<[RemoveRequest], true | undefined>(['request'])),
  };
}

export type PackHooks = Readonly<ReturnType<typeof createPackHooks>>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'packs.kinds': PackHooks;
  }
}

/** A starter pack shipped by a plugin. */
export interface Template {
  /** kebab-case, unique on the instance. */
  id: string;
  /** The plugin shipping it. */
  plugin: string;
  name: string;
  description: string;
  categories: string[];
  pack: Pack;
}

/** `packs.templates`: plugins shipping starter packs add them. */
export function createTemplateHooks() {
  return {
    templates: new SyncWaterfallHook<[Template[]]>(['templates']),
  };
}

export type TemplateHooks = Readonly<ReturnType<typeof createTemplateHooks>>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'packs.templates': TemplateHooks;
  }
}
