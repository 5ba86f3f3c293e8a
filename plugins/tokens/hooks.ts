import { AsyncSeriesHook } from '../../core/hooks.ts';
import type { TokenScope } from '../../core/principal.ts';
import type { Db } from '../../core/db.ts';

export interface TokenCreation {
  userId: string;
  workspaceId: string;
  scope: TokenScope;
  allowRunButton: boolean;
  /** The creating transaction: what a tap reads or locks here holds until the token is stored. */
  trx: Db;
}

/** What `tokens.creation` offers: a tap may refuse a token by throwing an AppError (e.g. not a member of the workspace). */
export function createTokenHooks() {
  return {
    beforeCreate: new AsyncSeriesHook<[TokenCreation]>(['creation']),
  };
}

export type TokenHooks = Readonly<ReturnType<typeof createTokenHooks>>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'tokens.creation': TokenHooks;
  }
}
