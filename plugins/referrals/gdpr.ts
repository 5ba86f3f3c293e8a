import type { PluginContext } from '../../core/plugin.ts';

/**
 * Referrals are the account's. The person's code, attribution and rewards go; a reward another referrer earned
 * for referring them stays that referrer's, no longer saying whom it was for.
 */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('referrals', async (sections, { trx, userId, workspaceId }) => {
    if (workspaceId) return sections;
    const code = await trx('referral_codes').where({ user_id: userId }).select('code', 'created_at');
    const attribution = await trx('referral_attributions').where({ user_id: userId }).select('code', 'created_at');
    const rewards = await trx('referral_rewards').where({ referrer_id: userId }).select('kind', 'amount', 'created_at');
    return [...sections, { kind: 'referrals', items: [...code.map((c) => ({ code: c })), ...attribution.map((a) => ({ referred_with: a })), ...rewards.map((r) => ({ reward: r }))] }];
  });
  hooks.erase.tapPromise('referrals', async (reports, { trx, userId, workspaceId }) => {
    if (workspaceId) return reports;
    const deleted =
      (await trx('referral_rewards').where({ referrer_id: userId }).del()) +
      (await trx('referral_attributions').where({ user_id: userId }).orWhere({ referrer_id: userId }).del()) +
      (await trx('referral_codes').where({ user_id: userId }).del());
    const pseudonymised = await trx('referral_rewards').where({ referred_user_id: userId }).update({ referred_user_id: null });
    return [...reports, { kind: 'referrals', deleted, pseudonymised, retained: [] }];
  });
}
