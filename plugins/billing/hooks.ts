import type { IncomingHttpHeaders } from 'node:http';
import { SyncWaterfallHook } from '../../core/hooks.ts';

/** A subscription's status as the provider reports it (Stripe's words). */
export type ProviderSubscriptionStatus = 'trialing' | 'active' | 'past_due' | 'unpaid' | 'canceled' | 'incomplete' | 'incomplete_expired' | 'paused';

/** A subscription as the provider holds it now: the state billing applies, whatever order the events came in. */
export interface ProviderSubscription {
  id: string;
  customerId: string;
  status: ProviderSubscriptionStatus;
  /** The price of its first item: it names the plan (`billing.plans[].price_id`). */
  priceId: string | null;
  currentPeriodEnd: Date | null;
  trialEnd: Date | null;
  /** The workspace it pays for, from the metadata billing set at checkout; null when it was made elsewhere. */
  workspaceId: string | null;
}

/**
 * A provider's webhook event, checked and read into what billing acts on. `id` is the provider's event id (each is
 * handled once); `type` its own name, kept for the record. Subscription events carry only the id: billing reads the
 * subscription afresh, so an event that arrives late cannot roll the state back.
 */
export type ProviderEvent = { id: string; type: string; created: Date } & (
  | { kind: 'checkout_completed'; workspaceId: string | null; customerId: string | null; subscriptionId: string | null }
  | { kind: 'subscription_changed'; subscriptionId: string }
  | { kind: 'invoice_paid' | 'invoice_failed'; subscriptionId: string | null }
  | { kind: 'payment_succeeded' | 'payment_failed'; paymentId: string; purchaseId: string | null; detail: string | null }
  | { kind: 'ignored' }
);

/** Why a webhook delivery was not believed: no signature, a wrong one, or a timestamp outside the tolerance. */
export interface WebhookRefusal {
  refused: string;
}

/** What a credit purchase asks the provider to charge, off session, to the customer's saved payment method. */
export interface CreditCharge {
  customerId: string;
  workspaceId: string;
  /** Billing's purchase id: it comes back in the payment's events. */
  purchaseId: string;
  credits: number;
  /** In the currency's smallest unit (cents). */
  amount: number;
  currency: string;
  /** The same for every attempt of one purchase: the provider charges it once. */
  idempotencyKey: string;
}

/**
 * A payment provider, as a plugin adds it to `billing.providers`. Every method is a call to the provider's API; a
 * failure to reach it or an answer that makes no sense throws `ProviderUnavailable`, a refused card `PaymentDeclined`.
 */
export interface PaymentProvider {
  /** Lower-case id, as `billing.provider` and `/billing/webhooks/{provider}` name it (`stripe`). */
  id: string;
  name: string;
  /** A customer for a workspace, made once: billing keeps its id. */
  createCustomer(input: { workspaceId: string; name: string; idempotencyKey: string }): Promise<{ id: string }>;
  /** A hosted checkout page starting a subscription to `priceId` (with `trialDays` free first, when given). */
  createCheckoutSession(input: { customerId: string; workspaceId: string; priceId: string; successUrl: string; cancelUrl: string; trialDays: number | null }): Promise<{ id: string; url: string }>;
  /** The provider's page where the customer manages payment methods, invoices and the subscription. */
  createPortalSession(input: { customerId: string; returnUrl: string }): Promise<{ url: string }>;
  /** The subscription as it is now; null when the provider knows no such subscription. */
  getSubscription(id: string): Promise<ProviderSubscription | null>;
  /** Charges a credit purchase; `processing` means its outcome comes later as a payment event. */
  chargeCredits(charge: CreditCharge): Promise<{ paymentId: string; status: 'succeeded' | 'processing' }>;
  /** Checks a delivery's signature over its exact bytes (at `now`, ms) and reads it. */
  readWebhook(input: { rawBody: Buffer; headers: IncomingHttpHeaders; now: number }): ProviderEvent | WebhookRefusal;
}

/** The provider could not be reached, or answered what billing cannot use; `detail` says which, without secrets. */
export class ProviderUnavailable extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'ProviderUnavailable';
  }
}

/** The provider refused the payment (a declined card, no saved payment method); `detail` is its reason. */
export class PaymentDeclined extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = 'PaymentDeclined';
  }
}

/** `billing.providers`: each payment plugin adds its provider; `billing.provider` picks the one in use. */
export function createBillingProviderHooks() {
  return {
    providers: new SyncWaterfallHook<[PaymentProvider[]]>(['providers']),
  };
}

export type BillingProviderHooks = Readonly<ReturnType<typeof createBillingProviderHooks>>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'billing.providers': BillingProviderHooks;
  }
}
