import { inTransaction, type Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import { serviceUnavailable } from '../../core/errors.ts';
import { normalizeCode, randomCode } from './codes.ts';
import type { RewardService } from './rewards.service.ts';
import type { Attribution, MyReferral } from './schemas.ts';

/** 31^8 ≈ 8.5e11 codes: a handful of collisions in a row means something else is wrong. */
const MAX_CODE_ATTEMPTS = 5;

/** A user's referral code and link, and attributing a new user to the code that brought them. */
export class ReferralService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly rewards: RewardService,
    private readonly newCode: () => string = randomCode,
  ) {}

  /** `baseUrl`: where the sign-up page lives (the instance's public URL). */
  async me(userId: string, baseUrl: string): Promise<MyReferral> {
    const code = await this.codeOf(userId);
    return {
      code,
      link: `${baseUrl.replace(/\/+$/, '')}/sign-up?ref=${encodeURIComponent(code)}`,
      rewards: await this.rewards.summary(userId),
    };
  }

  /**
   * The user's code, made on first use. ON CONFLICT DO NOTHING covers both races: a
   * concurrent first call for the same user (whose code then wins) and a code collision
   * with another user (retried with a fresh code).
   */
  async codeOf(userId: string): Promise<string> {
    const existing = () => this.db('referral_codes').where({ user_id: userId }).first('code');
    let row: { code: string } | undefined = await existing();
    for (let attempt = 0; !row && attempt < MAX_CODE_ATTEMPTS; attempt++) {
      const [inserted] = await this.db('referral_codes').insert({ user_id: userId, code: this.newCode() }).onConflict().ignore().returning('code');
      row = inserted ?? (await existing());
    }
    if (!row) throw serviceUnavailable('Could not allocate a referral code; try again.');
    return row.code;
  }

  /**
   * First touch, one time: the first code a user is attributed to stays theirs. A refused
   * attribution changes nothing and says why.
   */
  async attribute(userId: string, input: string): Promise<Attribution> {
    const code = normalizeCode(input);
    return inTransaction(this.db, async (trx) => {
      const owner = code ? await trx('referral_codes').where({ code }).first('user_id') : undefined;
      if (!owner) return { attributed: false, reason: 'unknown_code' } as const;
      if (owner.user_id === userId) return { attributed: false, reason: 'self_referral' } as const;
      const inserted = await trx('referral_attributions')
        .insert({ user_id: userId, referrer_id: owner.user_id, code })
        .onConflict('user_id')
        .ignore()
        .returning('user_id');
      if (inserted.length === 0) return { attributed: false, reason: 'already_attributed' } as const;
      await this.events.emit(trx, {
        name: 'referral.attributed',
        actorId: userId,
        payload: { referrer_id: owner.user_id, referred_user_id: userId, code },
      });
      return { attributed: true } as const;
    });
  }
}
