import { createHmac, randomBytes } from 'node:crypto';
import type { StripeObject } from './stripe-form.ts';

/** The API version events are written in unless a test says otherwise (the one the stripe client pins). */
export const CURRENT_API_VERSION = '2026-10-28.endive';
/** A version from before 2025-03-31, when invoices named their subscription directly and periods lived on subscriptions. */
export const LEGACY_API_VERSION = '2024-06-20';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** An id the way Stripe makes them: a prefix naming the object, then letters and digits (`cus_Nq9…`, `cs_test_a1…`). */
export function stripeId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  return `${prefix}_${Array.from(bytes, (b) => ALPHANUMERIC[b % ALPHANUMERIC.length]).join('')}`;
}

export const unixNow = () => Math.floor(Date.now() / 1000);

/** A Stripe event (`evt_…`) around `object`, as a webhook endpoint receives it. */
export function stripeEvent(
  type: string,
  object: StripeObject,
  opts: { id?: string; created?: number; apiVersion?: string; previousAttributes?: StripeObject } = {},
): StripeObject {
  return {
    id: opts.id ?? stripeId('evt'),
    object: 'event',
    api_version: opts.apiVersion ?? CURRENT_API_VERSION,
    created: opts.created ?? unixNow(),
    data: { object, ...(opts.previousAttributes ? { previous_attributes: opts.previousAttributes } : {}) },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

/** `v1`: hex HMAC-SHA256 of `${t}.${body}` keyed by the endpoint secret, Stripe's scheme, computed here and not by the client under test. */
export function stripeSignature(body: string, secret: string, timestampSeconds: number): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.${body}`, 'utf8').digest('hex');
}

/** An event as Stripe delivers it: the body it sends (pretty-printed, as Stripe does) and its `Stripe-Signature` header. */
export function signedEvent(event: StripeObject, secret: string, timestampSeconds = unixNow()): { body: string; header: string } {
  const body = JSON.stringify(event, null, 2);
  return { body, header: `t=${timestampSeconds},v1=${stripeSignature(body, secret, timestampSeconds)}` };
}

/** An invoice for a subscription, with the subscription where the event's API version puts it. */
export function invoiceObject(
  subscription: StripeObject,
  opts: { paid?: boolean; legacy?: boolean; amount?: number; billingReason?: string } = {},
): StripeObject {
  const paid = opts.paid ?? true;
  const amount = opts.amount ?? 1000;
  const metadata = subscription.metadata ?? {};
  const invoice: StripeObject = {
    id: stripeId('in'),
    object: 'invoice',
    customer: subscription.customer,
    status: paid ? 'paid' : 'open',
    billing_reason: opts.billingReason ?? 'subscription_cycle',
    currency: 'usd',
    amount_due: amount,
    amount_paid: paid ? amount : 0,
    amount_remaining: paid ? 0 : amount,
    attempt_count: 1,
    created: unixNow(),
    livemode: false,
  };
  if (opts.legacy) return { ...invoice, subscription: subscription.id, subscription_details: { metadata } };
  return { ...invoice, parent: { type: 'subscription_details', quote_details: null, subscription_details: { metadata, subscription: subscription.id } } };
}
