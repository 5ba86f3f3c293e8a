import { afterCommit } from '../../core/db.ts';
import type { PluginContext } from '../../core/plugin.ts';
import { avatarKey } from './avatars.service.ts';

/** Preferences and the avatar are the account's: exported and erased only outside a workspace. */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('users', async (sections, { trx, userId, workspaceId }) => {
    if (workspaceId) return sections;
    const preferences = await trx('users_preferences').where({ user_id: userId }).select('locale', 'timezone', 'notifications', 'updated_at');
    const user = await ctx.resolve('auth.users').findById(userId, trx);
    const avatar = user?.avatar_key ? [{ url: `/api/v1/users/${userId}/avatar`, updated_at: user.avatar_updated_at }] : [];
    return [...sections, { kind: 'preferences', items: preferences }, { kind: 'avatar', items: avatar }];
  });
  hooks.erase.tapPromise('users', async (reports, { trx, userId, workspaceId }) => {
    if (workspaceId) return reports;
    const preferences = await trx('users_preferences').where({ user_id: userId }).del();
    const user = await ctx.resolve('auth.users').findById(userId, trx);
    // The file goes once the erasure commits; a rolled-back erasure keeps the avatar it shows.
    if (user?.avatar_key) afterCommit(trx, () => void ctx.blobs.delete(avatarKey(userId)).catch((err: unknown) => ctx.logger.warn({ err }, 'avatar file of an erased user left behind')));
    return [...reports, { kind: 'preferences', deleted: preferences, pseudonymised: 0, retained: [] }, { kind: 'avatar', deleted: user?.avatar_key ? 1 : 0, pseudonymised: 0, retained: [] }];
  });
}
