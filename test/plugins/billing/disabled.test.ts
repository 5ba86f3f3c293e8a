import assert from 'node:assert/strict';
import { createWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import type { CreditService } from '../../../plugins/billing/credits.service.ts';

describe('billing: off until a payment provider is configured', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: SignedUpUser;
  let ws: string;
  const api = (path: string) => `/api/v1/workspaces/${ws}${path}`;

  before(async () => {
    t = await startTestKernel();
    admin = await signUp(t);
    ws = (await createWorkspace(t, admin)).id;
  });
  after(() => t.stop());

  it('answers self_hosted and nothing more, and 404 billing_disabled on every other billing route', async () => {
    const billing = await t.request.get(api('/billing')).set(admin.auth).expect(200);
    assert.deepEqual(billing.body, { enabled: false, plan: 'self_hosted' });
    const calls: Array<[string, string, object?]> = [
      ['get', '/billing/usage'],
      ['post', '/billing/trial', {}],
      ['post', '/billing/checkout-session', { plan: 'pro', success_url: 'https://app.example.com/ok', cancel_url: 'https://app.example.com/no' }],
      ['post', '/billing/portal-session', { return_url: 'https://app.example.com' }],
      ['put', '/billing/ai-credits/auto-reload', { enabled: true, threshold: 10, amount: 100 }],
      ['get', '/billing/ai-credits/ledger'],
    ];
    for (const [method, path, body] of calls) {
      const res = await (t.request as any)[method](api(path)).set(admin.auth).send(body);
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.code, 'billing_disabled', `${method} ${path}`);
    }
    const hook = await t.request.post('/api/v1/billing/webhooks/stripe').set('Stripe-Signature', 't=1,v1=00').send({ id: 'evt_1', type: 'invoice.paid' });
    assert.equal(hook.status, 404);
    assert.equal(hook.body.code, 'billing_disabled');
  });

  it('limits nothing and keeps nothing: 1,100 records, past any plan, and no billing row', async () => {
    const space = (await t.request.post(api('/spaces')).set(admin.auth).send({ name: 'Work' }).expect(201)).body.id;
    const db = (await t.request.post(api('/databases')).set(admin.auth).send({ name: 'Unlimited', space_id: space }).expect(201)).body.id;
    for (let i = 0; i < 11; i++) {
      const records = Array.from({ length: 100 }, (_, j) => ({ values: { name: `Row ${i * 100 + j}` } }));
      await t.request.post(api(`/databases/${db}/records`)).set(admin.auth).send({ records }).expect(201);
    }
    const page = await t.request.post(api(`/databases/${db}/records/query`)).set(admin.auth).send({ count: 'exact', limit: 1 }).expect(200);
    assert.equal(page.body.count, 1100);
    for (const table of ['billing_accounts', 'billing_usage', 'billing_credit_ledger', 'billing_events']) assert.equal((await t.db(table).count({ n: '*' }))[0].n, 0, table);
  });

  it('lets agents spend without counting: a debit answers no balance and stores nothing', async () => {
    const credits = t.kernel.container.resolverFor('billing')('billing.credits') as CreditService;
    assert.deepEqual(await credits.debit({ workspaceId: ws, amount: 1_000_000, detail: 'An agent run' }), { balance: null });
    assert.equal(await credits.balance(ws), null);
    for (const table of ['billing_accounts', 'billing_credit_ledger']) assert.equal((await t.db(table).count({ n: '*' }))[0].n, 0, table);
  });

  it('says nothing of plans anywhere else: the workspace answers as before', async () => {
    const workspace = await t.request.get(`/api/v1/workspaces/${ws}`).set(admin.auth).expect(200);
    assert.ok(!/plan|billing|trial/i.test(JSON.stringify(workspace.body)), JSON.stringify(workspace.body));
  });
});
