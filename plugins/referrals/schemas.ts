import { Type, type Static } from '../../core/schema.ts';

export const RewardSummary = Type.Object({
  referred_count: Type.Integer({ minimum: 0, description: 'Users attributed to my code.' }),
  reward_count: Type.Integer({ minimum: 0, description: 'Rewards granted to me for referrals.' }),
  total_amount: Type.Integer({ description: 'Sum of those rewards\' amounts, in the unit each reward kind uses.' }),
});
export type RewardSummary = Static<typeof RewardSummary>;

export const MyReferral = Type.Object({
  code: Type.String({ description: '8 characters from `ABCDEFGHJKMNPQRSTUVWXYZ23456789`; matched case-insensitively.' }),
  link: Type.String({ description: 'The sign-up page with `?ref=<code>`.' }),
  rewards: RewardSummary,
});
export type MyReferral = Static<typeof MyReferral>;

export const AttributeBody = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 64, description: 'A referral code, in any letter case.' }) },
  { additionalProperties: false },
);
export type AttributeBody = Static<typeof AttributeBody>;

export const NOT_ATTRIBUTED_REASONS = ['unknown_code', 'self_referral', 'already_attributed'] as const;
export type NotAttributedReason = (typeof NOT_ATTRIBUTED_REASONS)[number];

export const Attribution = Type.Object({
  attributed: Type.Boolean(),
  reason: Type.Optional(
    Type.Union(NOT_ATTRIBUTED_REASONS.map((r) => Type.Literal(r)), {
      description: 'Only when `attributed` is false: no such code, your own code, or you were already attributed (which never changes).',
    }),
  ),
});
export type Attribution = { attributed: true } | { attributed: false; reason: NotAttributedReason };
