import { AsyncSeriesBailHook } from '../../core/hooks.ts';
import type { Db } from '../../core/db.ts';

export interface SignUpCheck {
  email: string;
  /** The sign-up's transaction, holding the user-creation lock. */
  trx: Db;
}

/**
 * What `auth.signUp` offers. Under `signUp: 'invite_only'` an address may sign up only when a tap
 * answers `true` to `invited`: auth knows nothing of workspaces, so the plugin that stores invites says.
 */
export function createSignUpHooks() {
  return {
    invited: new AsyncSeriesBailHook<[SignUpCheck], true | undefined>(['check']),
  };
}

export type SignUpHooks = Readonly<ReturnType<typeof createSignUpHooks>>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'auth.signUp': SignUpHooks;
  }
}
