import type { Db } from '../../core/db.ts';
import type { RewardSummary } from './schemas.ts';

export interface RewardGrant {
  referrerId: string;
  /** The referred user the reward is for; null when not tied to one. */
  referredUserId: string | null;
  /** What the reward is, in the granting plugin's terms (`ai_credits`, `pro_days`, ...). */
  kind: string;
  amount: number;
}

export interface RewardRow {
  id: string;
  referrer_id: string;
  referred_user_id: string | null;
  kind: string;
  amount: number;
  created_at: Date;
}

/**
 * Rewards earned by referrers. Written by the plugin that grants them (billing), inside its
 * own transaction, so a reward exists exactly when what paid for it does.
 */
export class RewardService {
  constructor(private readonly db: Db) {}

  async grant(trx: Db, input: RewardGrant): Promise<RewardRow> {
    const [row] = await trx<RewardRow>('referral_rewards')
      .insert({ referrer_id: input.referrerId, referred_user_id: input.referredUserId, kind: input.kind, amount: input.amount })
      .returning('*');
    return row;
  }

  async summary(referrerId: string): Promise<RewardSummary> {
    const row = await this.db
      .first(
        this.db.raw('(SELECT count(*) FROM referral_attributions WHERE referrer_id = ?)::int AS referred_count', [referrerId]),
        this.db.raw('(SELECT count(*) FROM referral_rewards WHERE referrer_id = ?)::int AS reward_count', [referrerId]),
        this.db.raw('(SELECT coalesce(sum(amount), 0) FROM referral_rewards WHERE referrer_id = ?)::bigint AS total_amount', [referrerId]),
      );
    return { referred_count: row.referred_count, reward_count: row.reward_count, total_amount: Number(row.total_amount) };
  }
}
