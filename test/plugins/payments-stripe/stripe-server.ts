import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LEGACY_API_VERSION, invoiceObject, stripeEvent, stripeId, unixNow } from './event-fixtures.ts';
import { parseStripeForm, type StripeObject } from './stripe-form.ts';

export { CURRENT_API_VERSION, LEGACY_API_VERSION, invoiceObject, signedEvent, stripeEvent, stripeSignature } from './event-fixtures.ts';
export { parseStripeForm, type StripeObject } from './stripe-form.ts';

/**
 * A real HTTP server on loopback that speaks the parts of Stripe's v1 API the payments-stripe provider uses, the way
 * Stripe does: form-encoded requests, `Authorization: Bearer sk_…`, idempotency keys replaying the first answer, JSON
 * objects with Stripe's shapes and id prefixes, and errors as `{ error: { type, code, message, param } }` with Stripe's
 * statuses. Tests steer it (saved cards, declines, outages, subscription states) and read what it was sent.
 */

/** A request as the server received it: `body` is the form body, or for a GET the query, parsed. */
export interface StripeRequest {
  method: string;
  path: string;
  body: StripeObject;
  idempotencyKey: string | null;
  stripeVersion: string | null;
}

/** What the next confirmed charge does: goes through, waits on the bank, wants the customer, or is declined (402). */
export type ChargeOutcome = 'succeeded' | 'processing' | 'requires_action' | 'card_declined' | 'insufficient_funds' | 'authentication_required';

export interface SubscriptionState {
  customerId: string;
  status?: string;
  priceId?: string;
  currentPeriodEnd?: Date;
  trialEnd?: Date | null;
  workspaceId?: string | null;
  /** `item` (API versions since 2025-03-31, the default) or `subscription` (older ones): where the period end is. */
  periodEndOn?: 'item' | 'subscription';
}

export interface FakeStripe {
  /** What the provider's `apiUrl` is set to. */
  url: string;
  secretKey: string;
  /** Every request received, in order, refused ones included. */
  requests: StripeRequest[];
  customers: Map<string, StripeObject>;
  paymentMethods: Map<string, StripeObject>;
  checkoutSessions: Map<string, StripeObject>;
  subscriptions: Map<string, StripeObject>;
  paymentIntents: Map<string, StripeObject>;
  /** A customer, with a card that is its invoice default (`default`), one merely attached as Checkout leaves it (`attached`), or none. */
  addCustomer(opts?: { name?: string; workspaceId?: string; card?: 'default' | 'attached' | 'none' }): StripeObject;
  /** Deletes a customer the way the dashboard does: retrieving it answers `{ id, object: 'customer', deleted: true }`. */
  deleteCustomer(id: string): void;
  /** A Visa ending 4242 attached to the customer; `asDefault` also makes it the invoice default. */
  attachCard(customerId: string, opts?: { asDefault?: boolean }): StripeObject;
  /** The next confirmed charges end like this, in order; once used up, charges succeed. */
  queueCharges(...outcomes: ChargeOutcome[]): void;
  /** The next `n` confirmed charges are declined (`card_declined`, 402). */
  declineNextCharges(n: number): void;
  /** The next `n` requests are answered with a Stripe `api_error` of `status` (500 by default), before anything else. */
  failNext(n: number, status?: number): void;
  /** Every answer waits `ms` first (0: none). */
  setLatency(ms: number): void;
  /** Makes a subscription, or with `id` of one that exists changes it, and returns it as Stripe would. */
  setSubscription(state: Partial<SubscriptionState> & { id?: string }): StripeObject;
  /**
   * The customer finishing checkout session `sessionId`: a subscription to its price starts (trialing when the session
   * asked for trial days), the card used is attached to the customer (unless `card: false`), the session completes.
   * Returns the objects and the events Stripe sends for it.
   */
  completeCheckout(
    sessionId: string,
    opts?: { card?: boolean },
  ): { session: StripeObject; subscription: StripeObject; events: { checkoutCompleted: StripeObject; subscriptionCreated: StripeObject; invoicePaid: StripeObject } };
  /** A `customer.subscription.*` event carrying the subscription as it is now. */
  subscriptionEvent(subscriptionId: string, type?: string): StripeObject;
  /** An `invoice.*` event for the subscription's invoice; `legacy` puts the subscription where pre-2025-03-31 versions did. */
  invoiceEvent(subscriptionId: string, type: 'invoice.paid' | 'invoice.payment_succeeded' | 'invoice.payment_failed', opts?: { legacy?: boolean }): StripeObject;
  /** The `payment_intent.*` event for a payment as it is now (succeeded, payment_failed or processing). */
  paymentIntentEvent(paymentIntentId: string): StripeObject;
  /** A processing payment settling (a bank debit clearing or bouncing); returns the event Stripe sends. */
  settlePayment(paymentIntentId: string, outcome: 'succeeded' | 'failed'): StripeObject;
  close(): Promise<void>;
}

class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: StripeObject,
  ) {
    super(String(error.message));
  }
}

const invalid = (message: string, extra: StripeObject = {}) => new StripeApiError(400, { type: 'invalid_request_error', message, ...extra });
const noSuch = (what: string, id: string, param: string, status = 400) =>
  new StripeApiError(status, { type: 'invalid_request_error', code: 'resource_missing', doc_url: 'https://stripe.com/docs/error-codes/resource-missing', message: `No such ${what}: '${id}'`, param });
const missingParam = (param: string) => invalid(`Missing required param: ${param}.`, { code: 'parameter_missing', param });

const DECLINES: Record<string, { code: string; decline_code: string; message: string }> = {
  card_declined: { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' },
  insufficient_funds: { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  authentication_required: { code: 'authentication_required', decline_code: 'authentication_required', message: 'Your card was declined. This transaction requires authentication.' },
};

const THIRTY_DAYS = 30 * 24 * 3600;
const seconds = (date: Date | null | undefined) => (date ? Math.floor(date.getTime() / 1000) : null);
const list = (url: string, data: StripeObject[]) => ({ object: 'list', data, has_more: false, url });

export async function startStripeServer(opts: { secretKey?: string } = {}): Promise<FakeStripe> {
  const secretKey = opts.secretKey ?? 'sk_test_51FakeLoopbackKey0123456789abcdefABCDEF';
  const requests: StripeRequest[] = [];
  const customers = new Map<string, StripeObject>();
  const deletedCustomers = new Set<string>();
  const paymentMethods = new Map<string, StripeObject>();
  const checkoutSessions = new Map<string, StripeObject>();
  /** What a session asked of the subscription it starts; Stripe keeps it but does not show it on the session. */
  const checkoutRequests = new Map<string, { priceId: string; trialDays: number | null; metadata: StripeObject }>();
  const subscriptions = new Map<string, StripeObject>();
  const paymentIntents = new Map<string, StripeObject>();
  const idempotent = new Map<string, { request: string; status: number; payload: unknown }>();
  const chargeOutcomes: ChargeOutcome[] = [];
  let failures: { left: number; status: number } = { left: 0, status: 500 };
  let latencyMs = 0;
  let origin = '';

  function customer(id: unknown, param: string): StripeObject {
    const found = typeof id === 'string' ? customers.get(id) : undefined;
    if (!found) throw noSuch('customer', String(id ?? ''), param);
    return found;
  }

  function attachCard(customerId: string, { asDefault = false } = {}): StripeObject {
    const owner = customer(customerId, 'customer');
    const card: StripeObject = {
      id: stripeId('pm'),
      object: 'payment_method',
      type: 'card',
      card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, funding: 'credit', country: 'US' },
      billing_details: { name: owner.name, email: null, phone: null, address: null },
      customer: customerId,
      created: unixNow(),
      livemode: false,
      metadata: {},
    };
    paymentMethods.set(card.id, card);
    if (asDefault) owner.invoice_settings.default_payment_method = card.id;
    return card;
  }

  function addCustomer({ name = 'Acme', workspaceId, card = 'none' }: { name?: string; workspaceId?: string; card?: 'default' | 'attached' | 'none' } = {}): StripeObject {
    const created = createCustomer({ name, metadata: workspaceId ? { workspace_id: workspaceId } : {} });
    if (card !== 'none') attachCard(created.id, { asDefault: card === 'default' });
    return created;
  }

  function createCustomer(body: StripeObject): StripeObject {
    const created: StripeObject = {
      id: stripeId('cus', 14),
      object: 'customer',
      name: body.name ?? null,
      email: body.email ?? null,
      metadata: body.metadata ?? {},
      invoice_settings: { default_payment_method: null, custom_fields: null, footer: null, rendering_options: null },
      default_source: null,
      balance: 0,
      currency: null,
      delinquent: false,
      created: unixNow(),
      livemode: false,
    };
    customers.set(created.id, created);
    return created;
  }

  function createCheckoutSession(body: StripeObject): StripeObject {
    if (!body.mode) throw missingParam('mode');
    if (body.customer !== undefined) customer(body.customer, 'customer');
    const item = body.line_items?.[0];
    if (body.mode === 'subscription' && !item) throw invalid('`line_items` is required in `subscription` mode.', { param: 'line_items' });
    if (item && !item.price) throw missingParam('line_items[0][price]');
    if (!body.success_url) throw missingParam('success_url');
    const trialDays = body.subscription_data?.trial_period_days === undefined ? null : Number(body.subscription_data.trial_period_days);
    if (trialDays !== null && !(Number.isInteger(trialDays) && trialDays >= 1)) {
      throw invalid('Invalid integer: trial_period_days must be at least 1.', { code: 'parameter_invalid_integer', param: 'subscription_data[trial_period_days]' });
    }
    const id = stripeId('cs_test', 58);
    const created = unixNow();
    const session: StripeObject = {
      id,
      object: 'checkout.session',
      mode: body.mode,
      status: 'open',
      payment_status: 'unpaid',
      customer: body.customer ?? null,
      client_reference_id: body.client_reference_id ?? null,
      metadata: body.metadata ?? {},
      success_url: body.success_url,
      cancel_url: body.cancel_url ?? null,
      url: `${origin}/checkout/${id}`,
      subscription: null,
      currency: 'usd',
      created,
      expires_at: created + 24 * 3600,
      livemode: false,
    };
    checkoutSessions.set(id, session);
    checkoutRequests.set(id, { priceId: item?.price ?? '', trialDays, metadata: body.subscription_data?.metadata ?? {} });
    return session;
  }

  function createPortalSession(body: StripeObject): StripeObject {
    if (!body.customer) throw missingParam('customer');
    customer(body.customer, 'customer');
    const id = stripeId('bps');
    return {
      id,
      object: 'billing_portal.session',
      customer: body.customer,
      return_url: body.return_url ?? null,
      url: `${origin}/portal/${id}`,
      configuration: 'bpc_1FakeDefaultConfiguration',
      flow: null,
      locale: null,
      on_behalf_of: null,
      created: unixNow(),
      livemode: false,
    };
  }

  function listPaymentMethods(query: StripeObject): StripeObject {
    if (query.customer !== undefined) customer(query.customer, 'customer');
    const limit = Math.min(100, Number(query.limit ?? 10));
    const matching = [...paymentMethods.values()]
      .filter((pm) => (query.customer === undefined || pm.customer === query.customer) && (query.type === undefined || pm.type === query.type))
      .reverse();
    return { ...list('/v1/payment_methods', matching.slice(0, limit)), has_more: matching.length > limit };
  }

  function createPaymentIntent(body: StripeObject): StripeObject {
    if (body.amount === undefined) throw missingParam('amount');
    if (!body.currency) throw missingParam('currency');
    const amount = Number(body.amount);
    if (!Number.isInteger(amount)) throw invalid('Invalid integer: amount', { code: 'parameter_invalid_integer', param: 'amount' });
    if (amount < 50) throw invalid(`Amount must be at least 50 cents`, { code: 'amount_too_small', param: 'amount' });
    if (body.customer !== undefined) customer(body.customer, 'customer');
    const method = body.payment_method === undefined ? undefined : paymentMethods.get(body.payment_method);
    if (body.payment_method !== undefined && !method) throw noSuch('PaymentMethod', body.payment_method, 'payment_method');
    if (method && method.customer !== body.customer) {
      throw invalid(`The provided PaymentMethod ${method.id} does not belong to the Customer ${body.customer ?? '(none)'}.`, { param: 'payment_method' });
    }
    const intent: StripeObject = {
      id: stripeId('pi'),
      object: 'payment_intent',
      amount,
      amount_received: 0,
      currency: String(body.currency).toLowerCase(),
      customer: body.customer ?? null,
      payment_method: body.payment_method ?? null,
      description: body.description ?? null,
      metadata: body.metadata ?? {},
      automatic_payment_methods: body.automatic_payment_methods
        ? { enabled: body.automatic_payment_methods.enabled === 'true', allow_redirects: body.automatic_payment_methods.allow_redirects ?? 'always' }
        : null,
      capture_method: 'automatic',
      confirmation_method: 'automatic',
      status: 'requires_payment_method',
      last_payment_error: null,
      latest_charge: null,
      next_action: null,
      client_secret: '',
      created: unixNow(),
      livemode: false,
    };
    intent.client_secret = `${intent.id}_secret_${stripeId('x').slice(2)}`;
    paymentIntents.set(intent.id, intent);
    if (body.confirm !== 'true') return intent;
    if (!method) return intent;
    const outcome = chargeOutcomes.shift() ?? 'succeeded';
    const decline = DECLINES[outcome];
    if (decline) {
      const charge = stripeId('ch');
      intent.latest_charge = charge;
      intent.last_payment_error = { type: 'card_error', ...decline, charge, payment_method: method, doc_url: `https://stripe.com/docs/error-codes/${decline.code.replaceAll('_', '-')}` };
      throw new StripeApiError(402, { ...intent.last_payment_error, payment_intent: intent, request_log_url: `https://dashboard.stripe.com/test/logs/${stripeId('req', 14)}` });
    }
    intent.status = outcome;
    if (outcome === 'succeeded') {
      intent.amount_received = amount;
      intent.latest_charge = stripeId('ch');
    }
    if (outcome === 'requires_action') intent.next_action = { type: 'use_stripe_sdk', use_stripe_sdk: {} };
    return intent;
  }

  function setSubscription(state: Partial<SubscriptionState> & { id?: string }): StripeObject {
    const existing = state.id ? subscriptions.get(state.id) : undefined;
    const customerId = state.customerId ?? existing?.customer;
    if (!customerId) throw new Error('setSubscription: a new subscription needs customerId');
    const now = unixNow();
    const priceId = state.priceId ?? existing?.items.data[0].price.id ?? 'price_1FakeMonthly';
    const periodEnd = state.currentPeriodEnd !== undefined ? seconds(state.currentPeriodEnd) : (existing?.items.data[0].current_period_end ?? existing?.current_period_end ?? now + THIRTY_DAYS);
    const periodEndOn = state.periodEndOn ?? (existing && existing.current_period_end !== undefined ? 'subscription' : 'item');
    const id = state.id ?? stripeId('sub');
    const metadata = state.workspaceId === undefined ? (existing?.metadata ?? {}) : state.workspaceId === null ? {} : { workspace_id: state.workspaceId };
    const period = { current_period_start: (periodEnd ?? now) - THIRTY_DAYS, current_period_end: periodEnd };
    const item = {
      id: existing?.items.data[0].id ?? stripeId('si', 14),
      object: 'subscription_item',
      price: { id: priceId, object: 'price', active: true, currency: 'usd', unit_amount: 1000, type: 'recurring', recurring: { interval: 'month', interval_count: 1 }, product: 'prod_FakeProduct' },
      quantity: 1,
      subscription: id,
      ...(periodEndOn === 'item' ? period : {}),
    };
    const trialEnd = state.trialEnd !== undefined ? seconds(state.trialEnd) : (existing?.trial_end ?? null);
    const subscription: StripeObject = {
      id,
      object: 'subscription',
      customer: customerId,
      status: state.status ?? existing?.status ?? 'active',
      items: list(`/v1/subscription_items?subscription=${id}`, [item]),
      metadata,
      trial_start: trialEnd === null ? null : (existing?.trial_start ?? now),
      trial_end: trialEnd,
      cancel_at_period_end: false,
      canceled_at: null,
      ended_at: null,
      collection_method: 'charge_automatically',
      currency: 'usd',
      default_payment_method: existing?.default_payment_method ?? null,
      created: existing?.created ?? now,
      start_date: existing?.start_date ?? now,
      billing_cycle_anchor: existing?.billing_cycle_anchor ?? now,
      livemode: false,
      ...(periodEndOn === 'subscription' ? period : {}),
    };
    subscriptions.set(id, subscription);
    return subscription;
  }

  function completeCheckout(sessionId: string, { card = true }: { card?: boolean } = {}) {
    const session = checkoutSessions.get(sessionId);
    const asked = checkoutRequests.get(sessionId);
    if (!session || !asked) throw new Error(`completeCheckout: no checkout session ${sessionId}`);
    if (session.status !== 'open') throw new Error(`completeCheckout: session ${sessionId} is ${session.status}`);
    if (!session.customer) session.customer = createCustomer({}).id;
    const paymentMethod = card ? attachCard(session.customer).id : null;
    const trialEnd = asked.trialDays ? new Date((unixNow() + asked.trialDays * 86400) * 1000) : null;
    const subscription = setSubscription({
      customerId: session.customer,
      priceId: asked.priceId,
      status: trialEnd ? 'trialing' : 'active',
      trialEnd,
      currentPeriodEnd: trialEnd ?? new Date((unixNow() + THIRTY_DAYS) * 1000),
      workspaceId: asked.metadata.workspace_id ?? null,
    });
    subscription.default_payment_method = paymentMethod;
    Object.assign(session, { status: 'complete', payment_status: trialEnd ? 'no_payment_required' : 'paid', subscription: subscription.id });
    return {
      session,
      subscription,
      events: {
        checkoutCompleted: stripeEvent('checkout.session.completed', structuredClone(session)),
        subscriptionCreated: stripeEvent('customer.subscription.created', structuredClone(subscription)),
        invoicePaid: stripeEvent('invoice.paid', invoiceObject(subscription, { billingReason: 'subscription_create', amount: trialEnd ? 0 : 1000 })),
      },
    };
  }

  function existingSubscription(id: string): StripeObject {
    const found = subscriptions.get(id);
    if (!found) throw new Error(`no subscription ${id} on the fake Stripe`);
    return found;
  }

  function paymentIntentEvent(paymentIntentId: string): StripeObject {
    const intent = paymentIntents.get(paymentIntentId);
    if (!intent) throw new Error(`no payment intent ${paymentIntentId} on the fake Stripe`);
    const type = intent.status === 'succeeded' ? 'payment_intent.succeeded' : intent.last_payment_error ? 'payment_intent.payment_failed' : `payment_intent.${intent.status}`;
    return stripeEvent(type, structuredClone(intent));
  }

  function settlePayment(paymentIntentId: string, outcome: 'succeeded' | 'failed'): StripeObject {
    const intent = paymentIntents.get(paymentIntentId);
    if (!intent) throw new Error(`no payment intent ${paymentIntentId} on the fake Stripe`);
    if (outcome === 'succeeded') Object.assign(intent, { status: 'succeeded', amount_received: intent.amount, latest_charge: intent.latest_charge ?? stripeId('ch') });
    else Object.assign(intent, { status: 'requires_payment_method', last_payment_error: { type: 'card_error', code: 'payment_intent_payment_attempt_failed', message: 'The payment failed.' } });
    return paymentIntentEvent(paymentIntentId);
  }

  /** The answer to one request that passed authentication; throws StripeApiError for Stripe's refusals. */
  function answer(method: string, path: string, body: StripeObject): unknown {
    const [, version, resource, id, more] = path.split('/');
    if (version === 'v1') {
      if (method === 'POST' && path === '/v1/customers') return createCustomer(body);
      if (method === 'GET' && resource === 'customers' && id && !more) {
        if (deletedCustomers.has(id)) return { id, object: 'customer', deleted: true };
        return customer(id, 'id');
      }
      if (method === 'POST' && path === '/v1/checkout/sessions') return createCheckoutSession(body);
      if (method === 'POST' && path === '/v1/billing_portal/sessions') return createPortalSession(body);
      if (method === 'GET' && resource === 'subscriptions' && id && !more) {
        const found = subscriptions.get(id);
        if (!found) throw noSuch('subscription', id, 'id', 404);
        return found;
      }
      if (method === 'GET' && path === '/v1/payment_methods') return listPaymentMethods(body);
      if (method === 'POST' && path === '/v1/payment_intents') return createPaymentIntent(body);
    }
    throw new StripeApiError(404, {
      type: 'invalid_request_error',
      message: `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    });
  }

  function authFailure(authorization: string | undefined): StripeApiError | null {
    if (authorization === `Bearer ${secretKey}`) return null;
    if (!authorization) {
      return new StripeApiError(401, {
        type: 'invalid_request_error',
        message: "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
      });
    }
    const given = authorization.replace(/^Bearer /, '');
    return new StripeApiError(401, { type: 'invalid_request_error', message: `Invalid API Key provided: ${given.slice(0, 8)}${'*'.repeat(Math.max(0, given.length - 12))}${given.slice(-4)}` });
  }

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', origin);
    const method = req.method ?? 'GET';
    const body = parseStripeForm(method === 'GET' ? url.search.slice(1) : Buffer.concat(chunks).toString('utf8'));
    const idempotencyKey = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null;
    const stripeVersion = typeof req.headers['stripe-version'] === 'string' ? req.headers['stripe-version'] : null;
    requests.push({ method, path: url.pathname, body, idempotencyKey, stripeVersion });

    const requestId = stripeId('req', 14);
    const send = async (status: number, payload: unknown, replayed = false) => {
      if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
      if (res.destroyed) return;
      res.writeHead(status, {
        'content-type': 'application/json',
        'request-id': requestId,
        ...(stripeVersion ? { 'stripe-version': stripeVersion } : {}),
        ...(idempotencyKey && method === 'POST' ? { 'idempotency-key': idempotencyKey } : {}),
        ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
      });
      res.end(JSON.stringify(payload, null, 2));
    };

    if (failures.left > 0) {
      failures.left -= 1;
      return send(failures.status, { error: { type: 'api_error', message: 'Something went wrong on our end. Please try again.' } });
    }
    const refused = authFailure(req.headers.authorization);
    if (refused) return send(refused.status, { error: refused.error });

    // Stripe keeps the first answer to a key (once the request got past validation) and gives it again, the same parameters or none.
    const scope = idempotencyKey && method === 'POST' ? `${url.pathname}\n${idempotencyKey}` : null;
    const fingerprint = JSON.stringify(body);
    const earlier = scope ? idempotent.get(scope) : undefined;
    if (earlier && earlier.request !== fingerprint) {
      return send(400, {
        error: {
          type: 'idempotency_error',
          message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
        },
      });
    }
    if (earlier) return send(earlier.status, earlier.payload, true);

    let status = 200;
    let payload: unknown;
    try {
      payload = answer(method, url.pathname, body);
    } catch (error) {
      if (!(error instanceof StripeApiError)) throw error;
      status = error.status;
      payload = { error: error.error };
    }
    if (scope && (status === 200 || status === 402)) idempotent.set(scope, { request: fingerprint, status, payload: structuredClone(payload) });
    return send(status, payload);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: origin,
    secretKey,
    requests,
    customers,
    paymentMethods,
    checkoutSessions,
    subscriptions,
    paymentIntents,
    addCustomer,
    deleteCustomer: (id) => {
      customers.delete(id);
      deletedCustomers.add(id);
    },
    attachCard,
    queueCharges: (...outcomes) => chargeOutcomes.push(...outcomes),
    declineNextCharges: (n) => chargeOutcomes.push(...Array<ChargeOutcome>(n).fill('card_declined')),
    failNext: (n, status = 500) => {
      failures = { left: n, status };
    },
    setLatency: (ms) => {
      latencyMs = ms;
    },
    setSubscription,
    completeCheckout,
    subscriptionEvent: (subscriptionId, type = 'customer.subscription.updated') => stripeEvent(type, structuredClone(existingSubscription(subscriptionId))),
    invoiceEvent: (subscriptionId, type, { legacy = false } = {}) =>
      stripeEvent(type, invoiceObject(existingSubscription(subscriptionId), { paid: type !== 'invoice.payment_failed', legacy }), legacy ? { apiVersion: LEGACY_API_VERSION } : {}),
    paymentIntentEvent,
    settlePayment,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
