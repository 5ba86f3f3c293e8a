import assert from 'node:assert/strict';
import { createWorkspace, joinWorkspace, signUp, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import type { SubscriptionService } from '../../../plugins/billing/subscriptions.service.ts';
import { signedEvent, stripeEvent, type FakeStripe, type StripeObject } from '../payments-stripe/stripe-server.ts';
import { PRO_PRICE, setClock, startBillingWorld, type BillingWorld, TEAM_PRICE, WEBHOOK_SECRET } from './billing-kernel.ts';

const DAY = 86_400_000;
const urls = { success_url: 'https://app.example.com/billing/done', cancel_url: 'https://app.example.com/billing' };

describe('billing: subscriptions, checkout, the portal, the trial and Stripe webhooks', function () {
  this.timeout(120_000);
  let stripe: FakeStripe;
  let t: TestKernel;
  let admin: SignedUpUser;

  let world: BillingWorld;
  before(async () => ({ stripe, t, admin } = world = await startBillingWorld()));
  after(() => world.stop());
  afterEach(() => setClock(t, null));

  const api = (ws: string, path: string) => `/api/v1/workspaces/${ws}${path}`;
  const billing = async (ws: string) => (await t.request.get(api(ws, '/billing')).set(admin.auth).expect(200)).body;
  const subscriptions = () => t.kernel.container.resolverFor('billing')('billing.subscriptions') as SubscriptionService;
  /** Posts `event` to the receiver signed as Stripe signs it (at `timestamp`, with `secret`). */
  const deliver = (event: StripeObject, opts: { secret?: string; timestamp?: number } = {}) => {
    const signed = signedEvent(event, opts.secret ?? WEBHOOK_SECRET, opts.timestamp);
    return t.request.post('/api/v1/billing/webhooks/stripe').set({ 'Stripe-Signature': signed.header, 'Content-Type': 'application/json' }).send(signed.body);
  };
  const storedEvents = async () => Number((await t.db('billing_events').count({ n: '*' }))[0].n);

  /** A workspace that went through checkout for `price`'s plan and whose completion Stripe told; answers its subscription id. */
  async function subscribed(ws: string, plan = 'pro'): Promise<string> {
    const { body } = await t.request.post(api(ws, '/billing/checkout-session')).set(admin.auth).send({ plan, ...urls }).expect(201);
    const done = stripe.completeCheckout(new URL(body.url).pathname.split('/').pop()!);
    await deliver(done.events.checkoutCompleted).expect(200);
    return done.subscription.id;
  }

  it('starts checkout for a plan with a price, one customer per workspace, and takes the completion from Stripe', async () => {
    const ws = (await createWorkspace(t, admin)).id;
    for (const plan of ['free', 'enterprise']) {
      const refused = await t.request.post(api(ws, '/billing/checkout-session')).set(admin.auth).send({ plan, ...urls }).expect(422);
      assert.equal(refused.body.code, 'plan_not_purchasable');
      assert.equal(refused.body.errors[0].pointer, '/plan');
    }
    await t.request.post(api(ws, '/billing/checkout-session')).set(admin.auth).send({ plan: 'pro', success_url: 'javascript:alert(1)', cancel_url: urls.cancel_url }).expect(422);
    const before = stripe.requests.length;
    const first = await t.request.post(api(ws, '/billing/checkout-session')).set(admin.auth).send({ plan: 'pro', ...urls }).expect(201);
    await t.request.post(api(ws, '/billing/checkout-session')).set(admin.auth).send({ plan: 'team', ...urls }).expect(201);
    const sent = stripe.requests.slice(before);
    assert.equal(sent.filter((r) => r.path === '/v1/customers' && r.method === 'POST').length, 1, 'one customer for the workspace');
    const session = sent.find((r) => r.path === '/v1/checkout/sessions')!;
    assert.equal(session.body.mode, 'subscription');
    assert.equal(session.body.client_reference_id, ws);
    assert.equal(session.body.line_items[0].price, PRO_PRICE);
    assert.equal(session.body.subscription_data.metadata.workspace_id, ws);
    assert.equal(session.body.subscription_data.trial_period_days, undefined);
    assert.match(first.body.url, /^http:\/\/127\.0\.0\.1:\d+\/checkout\/cs_test_/);

    const done = stripe.completeCheckout(new URL(first.body.url).pathname.split('/').pop()!);
    assert.deepEqual((await deliver(done.events.checkoutCompleted).expect(200)).body, { received: true, handled: true });
    const now = await billing(ws);
    assert.equal(now.plan, 'pro');
    assert.equal(now.status, 'active');
    assert.equal(now.current_period_end, new Date(done.subscription.items.data[0].current_period_end * 1000).toISOString());
    assert.equal((await t.request.get(api(ws, '/billing/usage')).set(admin.auth).expect(200)).body.limits.records, 100);

    // The same event again changes nothing; a workspace that pays changes plans in the portal.
    assert.deepEqual((await deliver(done.events.checkoutCompleted).expect(200)).body, { received: true, duplicate: true });
    assert.equal((await t.request.post(api(ws, '/billing/checkout-session')).set(admin.auth).send({ plan: 'team', ...urls }).expect(409)).body.code, 'subscription_exists');
    const portal = await t.request.post(api(ws, '/billing/portal-session')).set(admin.auth).send({ return_url: 'https://app.example.com/billing' }).expect(201);
    assert.ok(portal.body.url);
    const asked = stripe.requests.filter((r) => r.path === '/v1/billing_portal/sessions').pop()!;
    assert.deepEqual([asked.body.customer, asked.body.return_url], [done.subscription.customer, 'https://app.example.com/billing']);
  });

  it('believes only a good signature over the exact bytes within 300 s, stores nothing otherwise, and passes over event types it does not use', async () => {
    const ws = (await createWorkspace(t, admin)).id;
    const customer = stripe.addCustomer({ workspaceId: ws });
    const sub = stripe.setSubscription({ customerId: customer.id, priceId: PRO_PRICE, workspaceId: ws });
    const event = stripe.subscriptionEvent(sub.id);
    const before = await storedEvents();
    const wrong = await deliver(event, { secret: 'whsec_someone_else' }).expect(401);
    assert.equal(wrong.body.code, 'bad_signature');
    await deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 301 }).expect(401);
    await t.request.post('/api/v1/billing/webhooks/stripe').set('Content-Type', 'application/json').send(JSON.stringify(event)).expect(401);
    const signed = signedEvent(event, WEBHOOK_SECRET);
    await t.request.post('/api/v1/billing/webhooks/stripe').set({ 'Stripe-Signature': signed.header, 'Content-Type': 'application/json' }).send(signed.body.replace(PRO_PRICE, TEAM_PRICE)).expect(401);
    assert.equal(await storedEvents(), before);
    assert.equal((await billing(ws)).plan, 'free');

    assert.deepEqual((await deliver(stripeEvent('customer.created', { id: customer.id, object: 'customer' })).expect(200)).body, { received: true, handled: false });
    assert.equal(await storedEvents(), before);
    await deliver(event).expect(200);
    assert.equal((await billing(ws)).plan, 'pro');
    assert.equal(await storedEvents(), before + 1);
    await t.request.post('/api/v1/billing/webhooks/paypal').set('Content-Type', 'application/json').send('{}').expect(404);
  });

  it('applies the subscription as Stripe holds it, so a late event cannot roll it back; a failed invoice tells the admins', async () => {
    const ws = (await createWorkspace(t, admin)).id;
    const second = await signUp(t);
    await joinWorkspace(t, admin, ws, second, 'admin');
    const sub = await subscribed(ws);
    const stale = stripe.subscriptionEvent(sub);

    stripe.setSubscription({ id: sub, status: 'past_due' });
    await deliver(stripe.invoiceEvent(sub, 'invoice.payment_failed')).expect(200);
    assert.deepEqual([(await billing(ws)).status, (await billing(ws)).plan], ['past_due', 'pro']);
    const told = await t.db('notifications').where({ workspace_id: ws, type: 'billing_payment_failed' }).pluck('user_id');
    assert.deepEqual(told.sort(), [admin.id, second.id].sort());

    stripe.setSubscription({ id: sub, status: 'canceled' });
    await deliver(stripe.subscriptionEvent(sub, 'customer.subscription.deleted')).expect(200);
    assert.deepEqual([(await billing(ws)).status, (await billing(ws)).plan], ['canceled', 'free']);
    // The update sent while it was active arrives last: it is read afresh, and the workspace stays canceled.
    await deliver(stale).expect(200);
    assert.deepEqual([(await billing(ws)).status, (await billing(ws)).plan], ['canceled', 'free']);
  });

  it('answers 502 and stores nothing while Stripe cannot be read, so the event is taken when Stripe sends it again', async () => {
    const ws = (await createWorkspace(t, admin)).id;
    const customer = stripe.addCustomer({ workspaceId: ws });
    const sub = stripe.setSubscription({ customerId: customer.id, priceId: TEAM_PRICE, workspaceId: ws });
    const event = stripe.subscriptionEvent(sub.id, 'customer.subscription.created');
    const before = await storedEvents();
    stripe.failNext(2);
    assert.equal((await deliver(event).expect(502)).body.code, 'provider_unavailable');
    assert.equal(await storedEvents(), before);
    assert.equal((await billing(ws)).plan, 'free');
    await deliver(event).expect(200);
    assert.equal((await billing(ws)).plan, 'team');
  });

  it('ignores a subscription whose metadata names no workspace here', async () => {
    const customer = stripe.addCustomer();
    for (const workspaceId of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      const sub = stripe.setSubscription({ customerId: customer.id, priceId: PRO_PRICE, workspaceId });
      assert.deepEqual((await deliver(stripe.subscriptionEvent(sub.id)).expect(200)).body, { received: true, handled: true });
    }
  });

  it('puts drift right in the daily reconciliation: a plan changed at Stripe, a subscription Stripe no longer has', async () => {
    const [a, b] = [(await createWorkspace(t, admin)).id, (await createWorkspace(t, admin)).id];
    const subA = await subscribed(a);
    const subB = await subscribed(b);
    stripe.setSubscription({ id: subA, priceId: TEAM_PRICE });
    stripe.subscriptions.delete(subB);
    await subscriptions().reconcile();
    assert.deepEqual([(await billing(a)).plan, (await billing(a)).status], ['team', 'active']);
    assert.deepEqual([(await billing(b)).plan, (await billing(b)).status], ['free', 'canceled']);
  });

  it('gives the trial once: Pro for 30 days, then free again unless the workspace subscribed meanwhile', async () => {
    const ws = (await createWorkspace(t, admin)).id;
    const space = (await t.request.post(api(ws, '/spaces')).set(admin.auth).send({ name: 'Work' }).expect(201)).body.id;
    const db = (await t.request.post(api(ws, '/databases')).set(admin.auth).send({ name: 'Tasks', space_id: space }).expect(201)).body.id;
    const create = (n: number) => t.request.post(api(ws, `/databases/${db}/records`)).set(admin.auth).send({ records: Array.from({ length: n }, (_, i) => ({ values: { name: `T${i}` } })) });
    await create(10).expect(201);
    await create(1).expect(402);
    const started = Date.now();
    const trial = await t.request.post(api(ws, '/billing/trial')).set(admin.auth).expect(201);
    assert.deepEqual([trial.body.plan, trial.body.status, trial.body.trial_used], ['pro', 'trialing', true]);
    const ends = Date.parse(trial.body.trial_ends_at);
    assert.ok(Math.abs(ends - (started + 30 * DAY)) < 60_000, trial.body.trial_ends_at);
    assert.equal((await t.request.post(api(ws, '/billing/trial')).set(admin.auth).expect(409)).body.code, 'trial_used');
    await create(5).expect(201);

    setClock(t, new Date(started + 29 * DAY));
    assert.equal(await subscriptions().endTrials(), 0);
    assert.equal((await billing(ws)).plan, 'pro');
    setClock(t, new Date(started + 31 * DAY));
    assert.equal(await subscriptions().endTrials(), 1);
    assert.deepEqual([(await billing(ws)).plan, (await billing(ws)).status], ['free', 'free']);
    // Back on free with 15 records: nothing is taken away, and nothing more fits.
    assert.equal((await create(1).expect(402)).body.limit, 10);
    assert.equal((await t.request.post(api(ws, '/billing/trial')).set(admin.auth).expect(409)).body.code, 'trial_used');
  });

  it('charges a workspace that subscribes during its trial from the trial’s end, and leaves it to Stripe once subscribed', async () => {
    const ws = (await createWorkspace(t, admin)).id;
    const started = Date.now();
    await t.request.post(api(ws, '/billing/trial')).set(admin.auth).expect(201);
    setClock(t, new Date(started + 10 * DAY + 3600_000));
    const { body } = await t.request.post(api(ws, '/billing/checkout-session')).set(admin.auth).send({ plan: 'pro', ...urls }).expect(201);
    assert.equal(stripe.requests.filter((r) => r.path === '/v1/checkout/sessions').pop()!.body.subscription_data.trial_period_days, '20');
    const done = stripe.completeCheckout(new URL(body.url).pathname.split('/').pop()!);
    await deliver(done.events.subscriptionCreated).expect(200);
    assert.deepEqual([(await billing(ws)).status, (await billing(ws)).plan], ['trialing', 'pro']);
    setClock(t, new Date(started + 31 * DAY));
    await subscriptions().endTrials();
    assert.deepEqual([(await billing(ws)).status, (await billing(ws)).plan], ['trialing', 'pro']);
    stripe.setSubscription({ id: done.subscription.id, status: 'active', trialEnd: null });
    await deliver(stripe.invoiceEvent(done.subscription.id, 'invoice.paid')).expect(200);
    assert.deepEqual([(await billing(ws)).status, (await billing(ws)).plan], ['active', 'pro']);
    assert.equal((await t.request.post(api((await createWorkspace(t, admin)).id, '/billing/trial')).set(admin.auth).expect(201)).body.status, 'trialing');
    assert.equal((await t.request.post(api(ws, '/billing/trial')).set(admin.auth).expect(409)).body.code, 'trial_used');
  });

  it('lets workspace admins only see and change billing', async () => {
    const ws = (await createWorkspace(t, admin)).id;
    const member = await signUp(t);
    await joinWorkspace(t, admin, ws, member, 'creator');
    await t.request.get(api(ws, '/billing')).set(member.auth).expect(403);
    await t.request.post(api(ws, '/billing/trial')).set(member.auth).expect(403);
    assert.equal((await billing(ws)).trial_used, false);
    const outsider = await signUp(t);
    await t.request.get(api(ws, '/billing/usage')).set(outsider.auth).expect(404);
  });
});
