import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PaymentDeclined, ProviderUnavailable, type CreditCharge, type PaymentProvider, type ProviderEvent, type WebhookRefusal } from '../../../plugins/billing/public.ts';
import { stripeProvider } from '../../../plugins/payments-stripe/stripe-provider.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';
import { LEGACY_API_VERSION, invoiceObject, signedEvent, startStripeServer, stripeEvent, stripeSignature, type FakeStripe, type StripeObject } from './stripe-server.ts';

const WEBHOOK_SECRET = 'whsec_test_0123456789abcdefghijklmnopqrstuv';
const WORKSPACE = '3f1c9a52-7d64-4a8e-b1f0-6c2e9d8a4b17';

/** What a rejected promise was rejected with, checked to be of `kind`. */
async function rejection<E extends Error>(promise: Promise<unknown>, kind: new (...args: any[]) => E): Promise<E> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof kind, `expected ${kind.name}, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected ${kind.name}, but it resolved`);
}

/** A port nothing listens on: one the system gave a server that has since closed. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('payments-stripe provider', () => {
  storageIndependent();

  let stripe: FakeStripe;
  let provider: PaymentProvider;

  beforeEach(async () => {
    stripe = await startStripeServer();
    provider = stripeProvider({ secretKey: stripe.secretKey, webhookSecret: WEBHOOK_SECRET, apiUrl: stripe.url, timeoutMs: 300 });
  });
  afterEach(() => stripe.close());

  const postsTo = (path: string) => stripe.requests.filter((r) => r.method === 'POST' && r.path === path);

  it('is Stripe, with the id billing and the webhook route name it by', () => {
    assert.equal(provider.id, 'stripe');
    assert.equal(provider.name, 'Stripe');
  });

  describe('createCustomer', () => {
    it('creates a customer named for the workspace, with its id in the metadata and the idempotency key passed', async () => {
      const { id } = await provider.createCustomer({ workspaceId: WORKSPACE, name: 'Acme Ltd', idempotencyKey: `customer-${WORKSPACE}` });
      assert.match(id, /^cus_/);
      const [request] = postsTo('/v1/customers');
      assert.deepEqual(request.body, { name: 'Acme Ltd', metadata: { workspace_id: WORKSPACE } });
      assert.equal(request.idempotencyKey, `customer-${WORKSPACE}`);
      assert.deepEqual(stripe.customers.get(id)?.metadata, { workspace_id: WORKSPACE });
    });

    it('makes one customer however often it is asked with the same key', async () => {
      const input = { workspaceId: WORKSPACE, name: 'Acme Ltd', idempotencyKey: 'customer-once' };
      const first = await provider.createCustomer(input);
      const second = await provider.createCustomer(input);
      assert.equal(second.id, first.id);
      assert.equal(postsTo('/v1/customers').length, 2);
      assert.equal(stripe.customers.size, 1);
    });
  });

  describe('createCheckoutSession', () => {
    it('opens a subscription checkout for the customer, with the workspace on the session and on the subscription to be', async () => {
      const customer = stripe.addCustomer();
      const session = await provider.createCheckoutSession({
        customerId: customer.id,
        workspaceId: WORKSPACE,
        priceId: 'price_1PlanPro',
        successUrl: 'https://tessera.example/billing?checkout=done',
        cancelUrl: 'https://tessera.example/billing',
        trialDays: null,
      });
      assert.match(session.id, /^cs_test_/);
      assert.equal(session.url, `${stripe.url}/checkout/${session.id}`);
      const [request] = postsTo('/v1/checkout/sessions');
      assert.deepEqual(request.body, {
        mode: 'subscription',
        customer: customer.id,
        client_reference_id: WORKSPACE,
        line_items: [{ price: 'price_1PlanPro', quantity: '1' }],
        success_url: 'https://tessera.example/billing?checkout=done',
        cancel_url: 'https://tessera.example/billing',
        subscription_data: { metadata: { workspace_id: WORKSPACE } },
        metadata: { workspace_id: WORKSPACE },
      });
    });

    it('asks for the trial days when there are some, and the subscription it starts is trialing', async () => {
      const customer = stripe.addCustomer();
      const session = await provider.createCheckoutSession({ customerId: customer.id, workspaceId: WORKSPACE, priceId: 'price_1PlanPro', successUrl: 'https://t.example/ok', cancelUrl: 'https://t.example/no', trialDays: 14 });
      assert.equal(postsTo('/v1/checkout/sessions')[0].body.subscription_data.trial_period_days, '14');
      const { subscription } = stripe.completeCheckout(session.id);
      assert.equal(subscription.status, 'trialing');
    });

    it('is ProviderUnavailable, with Stripe’s reason, when Stripe does not know the customer', async () => {
      const failure = await rejection(
        provider.createCheckoutSession({ customerId: 'cus_Gone', workspaceId: WORKSPACE, priceId: 'price_1PlanPro', successUrl: 'https://t.example/ok', cancelUrl: 'https://t.example/no', trialDays: null }),
        ProviderUnavailable,
      );
      assert.match(failure.detail, /400 resource_missing: No such customer: 'cus_Gone'/);
    });
  });

  describe('createPortalSession', () => {
    it('opens the Customer Portal for the customer, coming back to the return URL', async () => {
      const customer = stripe.addCustomer();
      const { url } = await provider.createPortalSession({ customerId: customer.id, returnUrl: 'https://tessera.example/billing' });
      assert.match(url, new RegExp(`^${stripe.url}/portal/bps_`));
      assert.deepEqual(postsTo('/v1/billing_portal/sessions')[0].body, { customer: customer.id, return_url: 'https://tessera.example/billing' });
    });
  });

  describe('getSubscription', () => {
    it('reads the subscription a checkout started: customer, status, price, period end on the item, trial end, workspace', async () => {
      const customer = stripe.addCustomer();
      const session = await provider.createCheckoutSession({ customerId: customer.id, workspaceId: WORKSPACE, priceId: 'price_1PlanTeam', successUrl: 'https://t.example/ok', cancelUrl: 'https://t.example/no', trialDays: 7 });
      const { subscription } = stripe.completeCheckout(session.id);
      const read = await provider.getSubscription(subscription.id);
      assert.deepEqual(read, {
        id: subscription.id,
        customerId: customer.id,
        status: 'trialing',
        priceId: 'price_1PlanTeam',
        currentPeriodEnd: new Date(subscription.items.data[0].current_period_end * 1000),
        trialEnd: new Date(subscription.trial_end * 1000),
        workspaceId: WORKSPACE,
      });
      assert.equal(subscription.current_period_end, undefined, 'the fake keeps the period on the item, as current API versions do');
      assert.equal(stripe.requests.at(-1)?.path, `/v1/subscriptions/${subscription.id}`);
    });

    it('reads the period end from the subscription when the item has none (API versions before 2025-03-31)', async () => {
      const customer = stripe.addCustomer();
      const periodEnd = new Date('2031-05-01T12:00:00Z');
      const subscription = stripe.setSubscription({ customerId: customer.id, status: 'past_due', currentPeriodEnd: periodEnd, periodEndOn: 'subscription', workspaceId: null });
      assert.equal(subscription.items.data[0].current_period_end, undefined);
      const read = await provider.getSubscription(subscription.id);
      assert.equal(read?.currentPeriodEnd?.toISOString(), periodEnd.toISOString());
      assert.equal(read?.status, 'past_due');
      assert.equal(read?.trialEnd, null);
      assert.equal(read?.workspaceId, null);
    });

    it("prefers the item's period end to the subscription's, and reads an expanded customer's id", async () => {
      const customer = stripe.addCustomer();
      const subscription = stripe.setSubscription({ customerId: customer.id, currentPeriodEnd: new Date('2031-01-01T00:00:00Z') });
      subscription.current_period_end = Date.parse('2020-01-01T00:00:00Z') / 1000;
      subscription.customer = { ...customer };
      const read = await provider.getSubscription(subscription.id);
      assert.equal(read?.currentPeriodEnd?.toISOString(), '2031-01-01T00:00:00.000Z');
      assert.equal(read?.customerId, customer.id);
    });

    it('is null for a subscription Stripe does not know (404 resource_missing)', async () => {
      assert.equal(await provider.getSubscription('sub_DoesNotExist'), null);
      assert.equal(stripe.requests.length, 1, 'a 404 is an answer: not retried');
    });

    it('is ProviderUnavailable for a status billing does not know', async () => {
      const customer = stripe.addCustomer();
      const subscription = stripe.setSubscription({ customerId: customer.id, status: 'on_hold' });
      const failure = await rejection(provider.getSubscription(subscription.id), ProviderUnavailable);
      assert.match(failure.detail, /on_hold/);
    });
  });

  describe('chargeCredits', () => {
    const charge = (customerId: string, overrides: Partial<CreditCharge> = {}): CreditCharge => ({
      customerId,
      workspaceId: WORKSPACE,
      purchaseId: 'a9d0c6b2-5e1f-4c3a-8b7d-2f4e6a8c0e1b',
      credits: 1000,
      amount: 1500,
      currency: 'EUR',
      idempotencyKey: 'purchase-a9d0c6b2',
      ...overrides,
    });

    it("charges the customer's default card off session, once per idempotency key, with the purchase in the metadata", async () => {
      const customer = stripe.addCustomer({ card: 'default' });
      const card = customer.invoice_settings.default_payment_method;
      const result = await provider.chargeCredits(charge(customer.id));
      assert.match(result.paymentId, /^pi_/);
      assert.equal(result.status, 'succeeded');
      assert.deepEqual(
        stripe.requests.map((r) => `${r.method} ${r.path}`),
        [`GET /v1/customers/${customer.id}`, 'POST /v1/payment_intents'],
      );
      const [request] = postsTo('/v1/payment_intents');
      assert.equal(request.idempotencyKey, 'purchase-a9d0c6b2');
      assert.deepEqual(request.body, {
        amount: '1500',
        currency: 'eur',
        customer: customer.id,
        payment_method: card,
        off_session: 'true',
        confirm: 'true',
        automatic_payment_methods: { enabled: 'true', allow_redirects: 'never' },
        description: '1000 credits',
        metadata: { workspace_id: WORKSPACE, purchase_id: 'a9d0c6b2-5e1f-4c3a-8b7d-2f4e6a8c0e1b', credits: '1000' },
      });
      assert.equal(stripe.paymentIntents.get(result.paymentId)?.status, 'succeeded');

      const again = await provider.chargeCredits(charge(customer.id));
      assert.equal(again.paymentId, result.paymentId);
      assert.equal(stripe.paymentIntents.size, 1, 'the same key charged once');
    });

    it('falls back to a card attached to the customer when it has no default (as Checkout leaves it)', async () => {
      const customer = stripe.addCustomer({ card: 'attached' });
      const [card] = [...stripe.paymentMethods.values()];
      assert.equal(customer.invoice_settings.default_payment_method, null);
      await provider.chargeCredits(charge(customer.id));
      const listed = stripe.requests.find((r) => r.path === '/v1/payment_methods');
      assert.deepEqual(listed?.body, { customer: customer.id, type: 'card', limit: '1' });
      assert.equal(postsTo('/v1/payment_intents')[0].body.payment_method, card.id);
    });

    it('is PaymentDeclined when Stripe refuses the charge as asked (below its minimum amount), tried once', async () => {
      const customer = stripe.addCustomer({ card: 'default' });
      const failure = await rejection(provider.chargeCredits(charge(customer.id, { amount: 20 })), PaymentDeclined);
      assert.match(failure.detail, /at least 50 cents/);
      assert.equal(postsTo('/v1/payment_intents').length, 1);
    });

    it('is PaymentDeclined, without trying to charge, when the customer has no saved payment method', async () => {
      const customer = stripe.addCustomer({ card: 'none' });
      const failure = await rejection(provider.chargeCredits(charge(customer.id)), PaymentDeclined);
      assert.equal(failure.detail, 'The customer has no saved payment method.');
      assert.equal(postsTo('/v1/payment_intents').length, 0);
    });

    it("is PaymentDeclined with the bank's reason when the card is declined, and the same key gives the same answer", async () => {
      const customer = stripe.addCustomer({ card: 'default' });
      stripe.queueCharges('insufficient_funds');
      const failure = await rejection(provider.chargeCredits(charge(customer.id)), PaymentDeclined);
      assert.equal(failure.detail, 'Your card has insufficient funds.');
      const replay = await rejection(provider.chargeCredits(charge(customer.id)), PaymentDeclined);
      assert.equal(replay.detail, 'Your card has insufficient funds.');
      assert.equal(stripe.paymentIntents.size, 1);
      const retried = await provider.chargeCredits(charge(customer.id, { idempotencyKey: 'purchase-a9d0c6b2-retry' }));
      assert.equal(retried.status, 'succeeded');
    });

    it('is PaymentDeclined when the card wants the customer to authenticate, by error or by status', async () => {
      const customer = stripe.addCustomer({ card: 'default' });
      stripe.queueCharges('authentication_required', 'requires_action');
      const byError = await rejection(provider.chargeCredits(charge(customer.id)), PaymentDeclined);
      assert.match(byError.detail, /requires authentication/);
      const byStatus = await rejection(provider.chargeCredits(charge(customer.id, { idempotencyKey: 'second' })), PaymentDeclined);
      assert.match(byStatus.detail, /requires_action/);
    });

    it('is processing when the payment settles later', async () => {
      const customer = stripe.addCustomer({ card: 'default' });
      stripe.queueCharges('processing');
      const result = await provider.chargeCredits(charge(customer.id));
      assert.equal(result.status, 'processing');
      assert.equal(stripe.paymentIntents.get(result.paymentId)?.status, 'processing');
    });

    it('is ProviderUnavailable for a customer deleted at Stripe', async () => {
      const customer = stripe.addCustomer({ card: 'default' });
      stripe.deleteCustomer(customer.id);
      const failure = await rejection(provider.chargeCredits(charge(customer.id)), ProviderUnavailable);
      assert.match(failure.detail, /deleted/);
    });
  });

  describe('when Stripe fails', () => {
    it('tries once more after a 500, and succeeds if Stripe does', async () => {
      stripe.failNext(1);
      const { id } = await provider.createCustomer({ workspaceId: WORKSPACE, name: 'Acme', idempotencyKey: 'k-500-once' });
      assert.match(id, /^cus_/);
      const posts = postsTo('/v1/customers');
      assert.equal(posts.length, 2);
      assert.equal(posts[1].idempotencyKey, 'k-500-once', 'the retry is the same request');
    });

    it('is ProviderUnavailable when Stripe keeps answering 500, and the detail holds no secret key', async () => {
      stripe.failNext(2);
      const failure = await rejection(provider.getSubscription('sub_Any'), ProviderUnavailable);
      assert.match(failure.detail, /Stripe answered 500/);
      assert.ok(!failure.detail.includes(stripe.secretKey));
      assert.equal(stripe.requests.length, 2);
    });

    it('is ProviderUnavailable when the secret key is refused, without the key in the detail', async () => {
      const wrongKey = 'sk_test_51WrongKeyWrongKeyWrongKey0123456789';
      const wrong = stripeProvider({ secretKey: wrongKey, apiUrl: stripe.url, timeoutMs: 300 });
      const failure = await rejection(wrong.createPortalSession({ customerId: 'cus_Any', returnUrl: 'https://t.example' }), ProviderUnavailable);
      assert.match(failure.detail, /refused the secret key \(401\)/);
      assert.ok(!failure.detail.includes(wrongKey));
      assert.doesNotMatch(failure.detail + failure.message, /sk_test_/);
    });

    it('is ProviderUnavailable when Stripe cannot be reached', async () => {
      const unreachable = stripeProvider({ secretKey: stripe.secretKey, apiUrl: `http://127.0.0.1:${await closedPort()}`, timeoutMs: 300 });
      const failure = await rejection(unreachable.createCustomer({ workspaceId: WORKSPACE, name: 'Acme', idempotencyKey: 'k' }), ProviderUnavailable);
      assert.match(failure.detail, /could not be reached.*ECONNREFUSED/);
      assert.ok(!failure.detail.includes(stripe.secretKey));
    });

    it('is ProviderUnavailable when Stripe answers slower than the timeout', async () => {
      stripe.setLatency(1_000);
      const failure = await rejection(provider.getSubscription('sub_Any'), ProviderUnavailable);
      assert.match(failure.detail, /timeout/);
    });
  });

  describe('readWebhook', () => {
    const NOW = Date.parse('2030-06-01T10:00:00Z');
    const atNow = Math.floor(NOW / 1000);

    function deliver(event: StripeObject | string, opts: { secret?: string; t?: number; now?: number; header?: (signed: string) => string } = {}): ProviderEvent | WebhookRefusal {
      const t = opts.t ?? atNow - 5;
      const { body, header } = typeof event === 'string' ? { body: event, header: `t=${t},v1=${stripeSignature(event, opts.secret ?? WEBHOOK_SECRET, t)}` } : signedEvent(event, opts.secret ?? WEBHOOK_SECRET, t);
      const headers = { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': opts.header ? opts.header(header) : header };
      return provider.readWebhook({ rawBody: Buffer.from(body, 'utf8'), headers, now: opts.now ?? NOW });
    }

    function read(event: StripeObject): ProviderEvent {
      const outcome = deliver(event);
      if ('refused' in outcome) assert.fail(`refused: ${outcome.refused}`);
      return outcome;
    }

    function refusal(outcome: ProviderEvent | WebhookRefusal): string {
      assert.ok('refused' in outcome, `expected a refusal, got ${JSON.stringify(outcome)}`);
      return outcome.refused;
    }

    const subscriptionObject = { id: 'sub_1Q', object: 'subscription', customer: 'cus_Q', status: 'active', metadata: { workspace_id: WORKSPACE } };

    it('reads a delivery signed as Stripe signs it: the event id, type, time and what billing acts on', () => {
      const session = { id: 'cs_test_a1', object: 'checkout.session', mode: 'subscription', client_reference_id: WORKSPACE, customer: 'cus_Q', subscription: 'sub_1Q', metadata: {} };
      const event = stripeEvent('checkout.session.completed', session, { id: 'evt_1Checkout', created: atNow - 60 });
      assert.deepEqual(read(event), {
        id: 'evt_1Checkout',
        type: 'checkout.session.completed',
        created: new Date((atNow - 60) * 1000),
        kind: 'checkout_completed',
        workspaceId: WORKSPACE,
        customerId: 'cus_Q',
        subscriptionId: 'sub_1Q',
      });
    });

    it('refuses a delivery signed with another secret, or whose body changed after signing', () => {
      const event = stripeEvent('customer.subscription.updated', subscriptionObject);
      assert.match(refusal(deliver(event, { secret: 'whsec_someone_else' })), /does not vouch for this body: No signatures found matching/);
      const { body, header } = signedEvent(event, WEBHOOK_SECRET, atNow);
      const changed = Buffer.from(body.replace('"active"', '"canceled"'));
      assert.match(refusal(provider.readWebhook({ rawBody: changed, headers: { 'stripe-signature': header }, now: NOW })), /does not vouch/);
    });

    it('takes a signature up to 300 s old at `now` and refuses one 301 s old, whatever the machine clock says', () => {
      const event = stripeEvent('customer.subscription.updated', subscriptionObject);
      assert.equal(read({ ...event }).kind, 'subscription_changed');
      assert.ok(!('refused' in deliver(event, { t: atNow - 300 })));
      assert.match(refusal(deliver(event, { t: atNow - 301 })), /more than 300 s before the delivery arrived/);
      // Signed now by the machine clock: stale only because `now` says it arrived 301 s later.
      const signedAt = Math.floor(Date.now() / 1000);
      assert.ok(!('refused' in deliver(event, { t: signedAt, now: signedAt * 1000 })));
      assert.match(refusal(deliver(event, { t: signedAt, now: (signedAt + 301) * 1000 })), /more than 300 s/);
    });

    it('refuses a delivery without a Stripe-Signature header, or with one that has no v1 signature', () => {
      const { body } = signedEvent(stripeEvent('invoice.paid', invoiceObject(subscriptionObject)), WEBHOOK_SECRET, atNow);
      assert.match(refusal(provider.readWebhook({ rawBody: Buffer.from(body), headers: { 'content-type': 'application/json' }, now: NOW })), /no Stripe-Signature header/);
      assert.match(refusal(deliver(stripeEvent('invoice.paid', invoiceObject(subscriptionObject)), { header: (h) => h.replace('v1=', 'v0=') })), /does not vouch/);
    });

    it('takes a header with several v1 signatures when one of them matches (a secret being rolled)', () => {
      const event = stripeEvent('customer.subscription.deleted', subscriptionObject);
      const withOthers = (header: string) => {
        const [t, v1] = header.split(',');
        return [t, `v1=${'0'.repeat(64)}`, v1, `v0=${'f'.repeat(64)}`].join(',');
      };
      const outcome = deliver(event, { header: withOthers });
      assert.ok(!('refused' in outcome), JSON.stringify(outcome));
      assert.match(refusal(deliver(event, { header: (h) => h.split(',')[0] + `,v1=${'0'.repeat(64)},v1=${'1'.repeat(64)}` })), /does not vouch/);
    });

    it('refuses everything when no webhook secret is configured', () => {
      const noSecret = stripeProvider({ secretKey: stripe.secretKey, apiUrl: stripe.url });
      const { body, header } = signedEvent(stripeEvent('customer.subscription.updated', subscriptionObject), WEBHOOK_SECRET, atNow);
      assert.match(refusal(noSecret.readWebhook({ rawBody: Buffer.from(body), headers: { 'stripe-signature': header }, now: NOW })), /webhookSecret/);
    });

    it('refuses a well-signed body that is not a Stripe event', () => {
      assert.deepEqual(deliver('{"id": "evt_1", "type": "invoice.paid", '), { refused: 'The body is not a Stripe event.' });
      assert.deepEqual(deliver('{"hello": "world"}'), { refused: 'The body is not a Stripe event.' });
      assert.deepEqual(deliver(JSON.stringify({ id: 'evt_1', object: 'event', type: 'invoice.paid', created: atNow, data: {} })), { refused: 'The body is not a Stripe event.' });
    });

    it('reads a completed subscription checkout without a client reference from its metadata, and ignores one-off payments', () => {
      const session = { id: 'cs_test_b2', object: 'checkout.session', mode: 'subscription', client_reference_id: null, customer: { id: 'cus_Q', object: 'customer' }, subscription: 'sub_1Q', metadata: { workspace_id: WORKSPACE } };
      const event = read(stripeEvent('checkout.session.completed', session));
      assert.ok(event.kind === 'checkout_completed', event.kind);
      assert.equal(event.workspaceId, WORKSPACE);
      assert.equal(event.customerId, 'cus_Q');
      assert.equal(event.subscriptionId, 'sub_1Q');
      assert.equal(read(stripeEvent('checkout.session.completed', { ...session, mode: 'payment', subscription: null })).kind, 'ignored');
    });

    it('reads every subscription event as a change of that subscription', () => {
      for (const type of ['created', 'updated', 'deleted', 'paused', 'resumed', 'trial_will_end']) {
        const event = read(stripeEvent(`customer.subscription.${type}`, subscriptionObject));
        assert.deepEqual({ kind: event.kind, subscriptionId: 'subscriptionId' in event ? event.subscriptionId : undefined, type: event.type }, { kind: 'subscription_changed', subscriptionId: 'sub_1Q', type: `customer.subscription.${type}` });
      }
    });

    it('finds an invoice’s subscription where current API versions put it and where older ones did', () => {
      const cases: Array<[string, StripeObject, ProviderEvent['kind'], string | null]> = [
        ['invoice.paid', invoiceObject(subscriptionObject), 'invoice_paid', 'sub_1Q'],
        ['invoice.payment_succeeded', invoiceObject(subscriptionObject, { legacy: true }), 'invoice_paid', 'sub_1Q'],
        ['invoice.payment_failed', invoiceObject(subscriptionObject, { paid: false }), 'invoice_failed', 'sub_1Q'],
        ['invoice.payment_failed', invoiceObject(subscriptionObject, { paid: false, legacy: true }), 'invoice_failed', 'sub_1Q'],
        ['invoice.paid', { id: 'in_oneoff', object: 'invoice', customer: 'cus_Q', subscription: null, parent: null }, 'invoice_paid', null],
      ];
      for (const [type, invoice, kind, subscriptionId] of cases) {
        const event = read(stripeEvent(type, invoice, invoice.subscription ? { apiVersion: LEGACY_API_VERSION } : {}));
        assert.deepEqual({ kind: event.kind, subscriptionId: 'subscriptionId' in event ? event.subscriptionId : undefined }, { kind, subscriptionId }, `${type} ${JSON.stringify(invoice)}`);
      }
    });

    it('reads a payment’s outcome with the purchase it was for and, when it failed, why', () => {
      const intent = { id: 'pi_3Q', object: 'payment_intent', status: 'succeeded', metadata: { purchase_id: 'purchase-1', workspace_id: WORKSPACE, credits: '1000' }, last_payment_error: null };
      assert.deepEqual(read(stripeEvent('payment_intent.succeeded', intent, { id: 'evt_ok', created: atNow })), {
        id: 'evt_ok',
        type: 'payment_intent.succeeded',
        created: new Date(atNow * 1000),
        kind: 'payment_succeeded',
        paymentId: 'pi_3Q',
        purchaseId: 'purchase-1',
        detail: null,
      });
      const failed = read(stripeEvent('payment_intent.payment_failed', { ...intent, status: 'requires_payment_method', last_payment_error: { type: 'card_error', code: 'card_declined', message: 'Your card was declined.' } }));
      assert.ok(failed.kind === 'payment_failed');
      assert.equal(failed.purchaseId, 'purchase-1');
      assert.equal(failed.detail, 'Your card was declined.');
      const invoicePayment = read(stripeEvent('payment_intent.succeeded', { ...intent, metadata: {} }));
      assert.ok(invoicePayment.kind === 'payment_succeeded');
      assert.equal(invoicePayment.purchaseId, null);
    });

    it('ignores every other event type', () => {
      for (const type of ['charge.refunded', 'customer.updated', 'invoice.created', 'payment_intent.created', 'checkout.session.expired']) {
        assert.equal(read(stripeEvent(type, { id: 'x_1', object: 'thing' })).kind, 'ignored', type);
      }
    });

    it('reads the events the fake Stripe sends for a completed checkout and a settled payment', async () => {
      const customer = stripe.addCustomer();
      const session = await provider.createCheckoutSession({ customerId: customer.id, workspaceId: WORKSPACE, priceId: 'price_1PlanPro', successUrl: 'https://t.example/ok', cancelUrl: 'https://t.example/no', trialDays: null });
      const { subscription, events } = stripe.completeCheckout(session.id);
      const now = Date.now();
      const readNow = (event: StripeObject) => {
        const { body, header } = signedEvent(event, WEBHOOK_SECRET);
        return provider.readWebhook({ rawBody: Buffer.from(body), headers: { 'stripe-signature': header }, now });
      };
      assert.deepEqual(readNow(events.checkoutCompleted), {
        id: events.checkoutCompleted.id,
        type: 'checkout.session.completed',
        created: new Date(events.checkoutCompleted.created * 1000),
        kind: 'checkout_completed',
        workspaceId: WORKSPACE,
        customerId: customer.id,
        subscriptionId: subscription.id,
      });
      assert.deepEqual(readNow(events.subscriptionCreated), { id: events.subscriptionCreated.id, type: 'customer.subscription.created', created: new Date(events.subscriptionCreated.created * 1000), kind: 'subscription_changed', subscriptionId: subscription.id });
      assert.deepEqual(readNow(events.invoicePaid), { id: events.invoicePaid.id, type: 'invoice.paid', created: new Date(events.invoicePaid.created * 1000), kind: 'invoice_paid', subscriptionId: subscription.id });
      const failedInvoice = stripe.invoiceEvent(subscription.id, 'invoice.payment_failed', { legacy: true });
      assert.equal(failedInvoice.data.object.subscription, subscription.id);
      assert.deepEqual(readNow(failedInvoice), { id: failedInvoice.id, type: 'invoice.payment_failed', created: new Date(failedInvoice.created * 1000), kind: 'invoice_failed', subscriptionId: subscription.id });

      stripe.queueCharges('processing');
      const { paymentId } = await provider.chargeCredits({ customerId: customer.id, workspaceId: WORKSPACE, purchaseId: 'purchase-9', credits: 10, amount: 500, currency: 'usd', idempotencyKey: 'p9' });
      const settled = readNow(stripe.settlePayment(paymentId, 'failed'));
      assert.ok(!('refused' in settled) && settled.kind === 'payment_failed');
      assert.equal(settled.paymentId, paymentId);
      assert.equal(settled.purchaseId, 'purchase-9');
      assert.equal(settled.detail, 'The payment failed.');
    });
  });
});
