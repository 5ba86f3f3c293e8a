import assert from 'node:assert/strict';
import { createWorkspace, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import { startBillingWorld, type BillingWorld } from './billing-kernel.ts';

describe('billing and packs: nothing of billing travels', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: SignedUpUser;

  let world: BillingWorld;
  before(async () => ({ t, admin } = world = await startBillingWorld()));
  after(() => world.stop());

  it('exports no plan, trial, usage or credits, and an install leaves the installing workspace’s billing as it was', async () => {
    const home = (await createWorkspace(t, admin)).id;
    const away = (await createWorkspace(t, admin)).id;
    const api = (ws: string, path: string) => `/api/v1/workspaces/${ws}${path}`;
    await t.request.post(api(home, '/billing/trial')).set(admin.auth).expect(201);
    await t.request.put(api(home, '/billing/ai-credits/auto-reload')).set(admin.auth).send({ enabled: false, threshold: 5, amount: 100 }).expect(200);
    const space = (await t.request.post(api(home, '/spaces')).set(admin.auth).send({ name: 'Work' }).expect(201)).body.id;
    const db = (await t.request.post(api(home, '/databases')).set(admin.auth).send({ name: 'Tasks', space_id: space }).expect(201)).body.id;
    await t.request.post(api(home, `/databases/${db}/records`)).set(admin.auth).send({ records: [{ values: { name: 'One' } }, { values: { name: 'Two' } }] }).expect(201);

    const pack = (await t.request.post(api(home, '/packs/export')).set(admin.auth).send({ space_ids: [space], include_records: true }).expect(200)).body;
    assert.deepEqual(Object.keys(pack.resources).filter((kind) => /billing|plan|credit|usage/.test(kind)), []);
    assert.ok(!/trialing|self_hosted|"plan"|auto_reload|ai_credits/.test(JSON.stringify(pack)), 'the pack carries billing');

    const before = (await t.request.get(api(away, '/billing')).set(admin.auth).expect(200)).body;
    await t.request.post(api(away, '/packs/install')).set(admin.auth).send({ pack }).expect(201);
    const after = (await t.request.get(api(away, '/billing')).set(admin.auth).expect(200)).body;
    assert.deepEqual(after, before);
    assert.deepEqual([after.plan, after.status, after.trial_used], ['free', 'free', false]);
    assert.equal((await t.request.get(api(away, '/billing/usage')).set(admin.auth).expect(200)).body.usage.records, 2);
  });
});
