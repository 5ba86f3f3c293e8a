import type { Db } from '../../core/db.ts';
import { AsyncSeriesHook } from '../../core/hooks.ts';
import type { UserPrincipal } from '../../core/principal.ts';

/** A space being deleted, inside the deletion's transaction. */
export interface SpaceDeletion {
  trx: Db;
  workspaceId: string;
  spaceId: string;
  actor: UserPrincipal;
}

/**
 * `spaces.lifecycle`: `deleting` runs while the space's row is still there (content a foreign key cannot
 * reach goes: a database's own table); `deleted` once it is gone (what names the space by id alone: grants).
 */
export function createSpaceLifecycle() {
  return {
    deleting: new AsyncSeriesHook<[SpaceDeletion]>(['deletion']),
    deleted: new AsyncSeriesHook<[SpaceDeletion]>(['deletion']),
  };
}

export type SpaceLifecycle = Readonly<ReturnType<typeof createSpaceLifecycle>>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'spaces.lifecycle': SpaceLifecycle;
  }
}
