import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, signUp } from '../../../core/testing.ts';
import { definePlugin } from '../../../core/plugin.ts';
import { builtinPlugins } from '../../../plugins/index.ts';
import { eventually } from '../tokens/helpers.ts';

/** Stands in for billing: rewards a referrer when one of their referrals is attributed, through the exported service. */
const billing = definePlugin({
  id: 'fake-billing',
  version: '1.0.0',
  kernel: '^1.0.0',
  dependsOn: { referrals: '^1.0.0' },
  register(ctx) {
    ctx.subscribe({
      name: 'reward-referrer',
      events: ['referral.attributed'],
      handler: async (event) => {
        const { referrer_id, referred_user_id } = event.payload as { referrer_id: string; referred_user_id: string };
        await ctx.db.transaction((trx) =>
          ctx.resolve('referrals.rewards').grant(trx, { referrerId: referrer_id, referredUserId: referred_user_id, kind: 'ai_credits', amount: 500 }),
        );
      },
    });
  },
});

describe('referrals: rewards', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: [...builtinPlugins, billing] });
  });
  after(() => t.stop());

  it('a plugin depending on referrals grants rewards that show in the referrer\'s summary', async () => {
    const ann = await signUp(t);
    const { code } = (await t.request.get('/api/v1/referrals/me').set(ann.auth).expect(200)).body;
    const bob = await signUp(t);
    const cat = await signUp(t);
    await t.request.post('/api/v1/referrals/attribute').set(bob.auth).send({ code }).expect(200);
    await t.request.post('/api/v1/referrals/attribute').set(cat.auth).send({ code }).expect(200);

    const rewards = await eventually(async () => {
      const rows = await t.db('referral_rewards').where({ referrer_id: ann.id });
      return rows.length === 2 && rows;
    }, 10_000);
    assert.deepEqual(rewards.map((r) => [r.referred_user_id, r.kind, r.amount]).sort(), [[bob.id, 'ai_credits', 500], [cat.id, 'ai_credits', 500]].sort());
    const me = await t.request.get('/api/v1/referrals/me').set(ann.auth).expect(200);
    assert.deepEqual(me.body.rewards, { referred_count: 2, reward_count: 2, total_amount: 1000 });
    // The referred users earn nothing by being referred.
    assert.deepEqual((await t.request.get('/api/v1/referrals/me').set(bob.auth).expect(200)).body.rewards, { referred_count: 0, reward_count: 0, total_amount: 0 });
  });

  it('a deleted referred account leaves the referrer\'s reward; a deleted referrer takes theirs along', async () => {
    const rewards = t.container.resolverFor('referrals')('referrals.rewards');
    const ann = await signUp(t);
    const bob = await signUp(t);
    const reward = await t.db.transaction((trx) => rewards.grant(trx, { referrerId: ann.id, referredUserId: bob.id, kind: 'pro_days', amount: 30 }));
    assert.equal(reward.referred_user_id, bob.id);
    await t.db('users').where({ id: bob.id }).delete();
    const kept = await t.db('referral_rewards').where({ id: reward.id }).first();
    assert.equal(kept.referrer_id, ann.id);
    assert.equal(kept.referred_user_id, null);
    assert.equal((await t.request.get('/api/v1/referrals/me').set(ann.auth).expect(200)).body.rewards.total_amount, 30);
    await t.db('users').where({ id: ann.id }).delete();
    assert.equal(await t.db('referral_rewards').where({ id: reward.id }).first(), undefined);
  });
});
