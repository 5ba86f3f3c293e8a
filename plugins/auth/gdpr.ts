import type { PluginContext } from '../../core/plugin.ts';
import { SignInLimiter } from './sign-in-limiter.ts';

/**
 * The account's part of `gdpr.personalData`: who the person is, their account, sign-ins and linked identities.
 * The account goes last (stage 100): what other plugins keep hangs on it by cascade, and they report first.
 */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.identify.tapPromise('auth', async ({ trx, userId }) => {
    const row: { email: string; name: string } | undefined = await trx('users').where({ id: userId }).first('email', 'name');
    return row ? { email: row.email, name: row.name } : undefined;
  });
  hooks.export.tapPromise('auth', async (sections, { trx, userId, workspaceId }) => {
    if (workspaceId) return sections;
    const account = await trx('users').where({ id: userId }).first('id', 'email', 'name', 'is_instance_admin', 'created_at', 'updated_at');
    const sessions = await trx('sessions').where({ user_id: userId }).select('created_at', 'expires_at', 'last_seen_at', 'user_agent');
    const identities = await trx('auth_identities').where({ user_id: userId }).select('provider', 'email', 'created_at', 'last_used_at');
    return [...sections, { kind: 'account', items: [account] }, { kind: 'sessions', items: sessions }, { kind: 'identities', items: identities }];
  });
  hooks.erase.tapPromise({ name: 'auth', stage: 100 }, async (reports, { trx, userId, workspaceId, person }) => {
    if (workspaceId) return reports;
    const sessions = await trx('sessions').where({ user_id: userId }).del();
    const identities = await trx('auth_identities').where({ user_id: userId }).del();
    const resets = await trx('auth_password_resets').where({ user_id: userId }).del();
    const failures = await trx('auth_sign_in_failures').where({ account_key: SignInLimiter.emailKey(person.email) }).del();
    const account = await trx('users').where({ id: userId }).del();
    return [
      ...reports,
      { kind: 'account', deleted: account, pseudonymised: 0, retained: [] },
      { kind: 'sessions', deleted: sessions + resets + failures, pseudonymised: 0, retained: [] },
      { kind: 'identities', deleted: identities, pseudonymised: 0, retained: [] },
    ];
  });
}
