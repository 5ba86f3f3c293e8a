import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, signUp } from '../../../core/testing.ts';
import { AppError } from '../../../core/errors.ts';
import { ReferralService } from '../../../plugins/referrals/referrals.service.ts';

const CODE = /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{8}$/;

describe('referrals: GET /referrals/me', () => {
  let t: TestKernel;

  before(async () => {
    t = await startTestKernel({ config: { publicUrl: 'https://tessera.example.com/app/' } });
  });
  after(() => t.stop());

  it('makes a code on the first call and returns the same one afterwards, with the sign-up link', async () => {
    const ann = await signUp(t);
    assert.equal(await t.db('referral_codes').where({ user_id: ann.id }).first(), undefined);
    const first = await t.request.get('/api/v1/referrals/me').set(ann.auth).expect(200);
    assert.match(first.body.code, CODE);
    assert.deepEqual(first.body, {
      code: first.body.code,
      link: `https://tessera.example.com/app/sign-up?ref=${first.body.code}`,
      rewards: { referred_count: 0, reward_count: 0, total_amount: 0 },
    });
    const second = await t.request.get('/api/v1/referrals/me').set(ann.auth).expect(200);
    assert.equal(second.body.code, first.body.code);
    assert.equal((await t.db('referral_codes').where({ user_id: ann.id }).first()).code, first.body.code);
  });

  it('gives every user a different code', async () => {
    const codes = new Set<string>();
    for (let i = 0; i < 5; i++) codes.add((await t.request.get('/api/v1/referrals/me').set((await signUp(t)).auth).expect(200)).body.code);
    assert.equal(codes.size, 5);
  });

  it('concurrent first calls all get the one code that was stored', async () => {
    const bob = await signUp(t);
    const responses = await Promise.all(Array.from({ length: 8 }, () => t.request.get('/api/v1/referrals/me').set(bob.auth)));
    assert.deepEqual(responses.map((r) => r.status), Array(8).fill(200));
    const rows = await t.db('referral_codes').where({ user_id: bob.id });
    assert.equal(rows.length, 1);
    assert.deepEqual(new Set(responses.map((r) => r.body.code)), new Set([rows[0].code]));
  });

  it('retries with a fresh code when the random one is taken, and gives up after a few', async () => {
    const owner = await signUp(t);
    await t.db('referral_codes').insert({ user_id: owner.id, code: 'TAKEN234' });
    const resolve = t.container.resolverFor('referrals');
    const serviceWith = (next: () => string) => new ReferralService(t.db, resolve('events'), resolve('referrals.rewards'), next);

    const cy = await signUp(t);
    const answers = ['TAKEN234', 'TAKEN234', 'FRESH234'];
    assert.equal(await serviceWith(() => answers.shift()!).codeOf(cy.id), 'FRESH234');
    assert.equal((await t.db('referral_codes').where({ user_id: cy.id }).first()).code, 'FRESH234');

    const dee = await signUp(t);
    await assert.rejects(serviceWith(() => 'TAKEN234').codeOf(dee.id), (err: unknown) => err instanceof AppError && err.status === 503);
    assert.equal(await t.db('referral_codes').where({ user_id: dee.id }).first(), undefined);
  });

  it('needs a signed-in user', async () => {
    const res = await t.request.get('/api/v1/referrals/me').expect(401);
    assert.equal(res.body.code, 'unauthenticated');
  });
});

describe('referrals: link without a configured public URL', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel();
  });
  after(() => t.stop());

  it('points at the address the caller reached', async () => {
    const ann = await signUp(t);
    const res = await t.request.get('/api/v1/referrals/me').set(ann.auth).expect(200);
    assert.equal(res.body.link, `${t.url}/sign-up?ref=${res.body.code}`);
  });
});
