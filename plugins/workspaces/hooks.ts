import type { Db } from '../../core/db.ts';
import { AsyncSeriesHook } from '../../core/hooks.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { Role } from '../../core/roles.ts';

/** A member's role or guest spaces changed (`memberChanged`), inside the change's transaction. */
export interface MemberChanged {
  trx: Db;
  workspaceId: string;
  userId: string;
  before: { role: Role; space_ids: string[] };
  after: { role: Role; space_ids: string[] };
  actor: UserPrincipal;
}

/** A member left or was removed (`memberRemoved`), inside the removal's transaction, their row already gone. */
export interface MemberRemoved {
  trx: Db;
  workspaceId: string;
  userId: string;
  role: Role;
  actor: UserPrincipal;
}

/** A workspace is being deleted (`deleting`): its row is held and still there; everything in it goes by cascade next. */
export interface WorkspaceDeleting {
  trx: Db;
  workspaceId: string;
  actor: UserPrincipal;
}

/**
 * `workspaces.lifecycle`: what happens to a workspace and its members, for the plugins that keep something per
 * member or per workspace that a foreign key does not reach (watchers, grants, overrides, favorites, tables).
 * Every stage runs inside the transaction of the change; a tap that throws undoes it.
 */
export function createWorkspaceLifecycle() {
  return {
    memberChanged: new AsyncSeriesHook<[MemberChanged]>(['change']),
    memberRemoved: new AsyncSeriesHook<[MemberRemoved]>(['removal']),
    deleting: new AsyncSeriesHook<[WorkspaceDeleting]>(['deletion']),
  };
}

export type WorkspaceLifecycle = Readonly<ReturnType<typeof createWorkspaceLifecycle>>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'workspaces.lifecycle': WorkspaceLifecycle;
  }
}
