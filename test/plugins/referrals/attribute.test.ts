import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, signUp, type SignedUpUser } from '../../../core/testing.ts';

describe('referrals: POST /referrals/attribute', () => {
  let t: TestKernel;
  let ann: SignedUpUser;
  let annCode: string;
  let carolCode: string;

  before(async () => {
    t = await startTestKernel();
    ann = await signUp(t);
    annCode = (await t.request.get('/api/v1/referrals/me').set(ann.auth).expect(200)).body.code;
    carolCode = (await t.request.get('/api/v1/referrals/me').set((await signUp(t)).auth).expect(200)).body.code;
  });
  after(() => t.stop());

  const attribute = (user: SignedUpUser, body: unknown) => t.request.post('/api/v1/referrals/attribute').set(user.auth).send(body as object);
  const attributionOf = (user: SignedUpUser) => t.db('referral_attributions').where({ user_id: user.id }).first();

  it('attributes a user to a code in any letter case, once, and emits referral.attributed', async () => {
    const bob = await signUp(t);
    const res = await attribute(bob, { code: ` ${annCode.toLowerCase()} ` }).expect(200);
    assert.deepEqual(res.body, { attributed: true });
    const row = await attributionOf(bob);
    assert.equal(row.referrer_id, ann.id);
    assert.equal(row.code, annCode);
    const event = await t.db('kernel_events').where({ name: 'referral.attributed' }).whereRaw("payload->>'referred_user_id' = ?", [bob.id]).first();
    assert.deepEqual(event.payload, { referrer_id: ann.id, referred_user_id: bob.id, code: annCode });
    assert.equal(event.actor_id, bob.id);
    const me = await t.request.get('/api/v1/referrals/me').set(ann.auth).expect(200);
    assert.equal(me.body.rewards.referred_count, 1);
  });

  it('first touch wins: a later code, even a valid one, changes nothing', async () => {
    const dan = await signUp(t);
    await attribute(dan, { code: annCode }).expect(200);
    const res = await attribute(dan, { code: carolCode }).expect(200);
    assert.deepEqual(res.body, { attributed: false, reason: 'already_attributed' });
    assert.equal((await attributionOf(dan)).referrer_id, ann.id);
    const again = await attribute(dan, { code: annCode }).expect(200);
    assert.deepEqual(again.body, { attributed: false, reason: 'already_attributed' });
    const events = await t.db('kernel_events').where({ name: 'referral.attributed' }).whereRaw("payload->>'referred_user_id' = ?", [dan.id]);
    assert.equal(events.length, 1);
  });

  it('an unknown code or one\'s own code is refused with a reason, and nothing is stored', async () => {
    const eve = await signUp(t);
    const eveCode = (await t.request.get('/api/v1/referrals/me').set(eve.auth).expect(200)).body.code;
    assert.deepEqual((await attribute(eve, { code: 'NOSUCH22' }).expect(200)).body, { attributed: false, reason: 'unknown_code' });
    assert.deepEqual((await attribute(eve, { code: '   ' }).expect(200)).body, { attributed: false, reason: 'unknown_code' });
    assert.deepEqual((await attribute(eve, { code: eveCode.toLowerCase() }).expect(200)).body, { attributed: false, reason: 'self_referral' });
    assert.equal(await attributionOf(eve), undefined);
    assert.equal((await t.db('kernel_events').where({ name: 'referral.attributed' }).whereRaw("payload->>'referred_user_id' = ?", [eve.id])).length, 0);
    // Still free to be attributed properly.
    assert.deepEqual((await attribute(eve, { code: annCode }).expect(200)).body, { attributed: true });
  });

  it('concurrent attributions of one user: exactly one wins', async () => {
    const fay = await signUp(t);
    const results = await Promise.all([annCode, carolCode, annCode, carolCode].map((code) => attribute(fay, { code })));
    assert.deepEqual(results.map((r) => r.status), [200, 200, 200, 200]);
    const wins = results.filter((r) => r.body.attributed === true);
    assert.equal(wins.length, 1);
    assert.ok(results.every((r) => r.body.attributed === true || r.body.reason === 'already_attributed'));
    assert.equal((await t.db('referral_attributions').where({ user_id: fay.id })).length, 1);
    assert.equal((await t.db('kernel_events').where({ name: 'referral.attributed' }).whereRaw("payload->>'referred_user_id' = ?", [fay.id])).length, 1);
  });

  it('validates the body (422 with a pointer) and stores nothing', async () => {
    const gus = await signUp(t);
    for (const [body, pointer] of [
      [{}, '/code'],
      [{ code: '' }, '/code'],
      [{ code: 'A'.repeat(65) }, '/code'],
      [{ code: 12345678 }, '/code'],
      [{ code: annCode, referrer_id: ann.id }, '/referrer_id'],
    ] as const) {
      const res = await attribute(gus, body).expect(422);
      assert.equal(res.body.code, 'validation_failed');
      assert.ok(res.body.errors.some((e: { pointer: string }) => e.pointer === pointer), `${JSON.stringify(body)} → ${JSON.stringify(res.body.errors)}`);
    }
    assert.equal(await attributionOf(gus), undefined);
    // 64 characters is a valid (if unknown) code.
    assert.deepEqual((await attribute(gus, { code: 'A'.repeat(64) }).expect(200)).body, { attributed: false, reason: 'unknown_code' });
  });

  it('needs a signed-in user', async () => {
    const res = await t.request.post('/api/v1/referrals/attribute').send({ code: annCode }).expect(401);
    assert.equal(res.body.code, 'unauthenticated');
  });
});
