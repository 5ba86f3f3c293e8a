/** What other plugins may use from the referrals plugin: the type of its exported service (`referrals.rewards`). */
export type { RewardService } from './rewards.service.ts';
