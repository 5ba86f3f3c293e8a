import type Stripe from 'stripe';
import { ProviderUnavailable, type ProviderSubscription, type ProviderSubscriptionStatus } from '../billing/public.ts';

/**
 * Readers for Stripe's JSON as it arrives. Webhook events carry objects in the endpoint's API version, which need not
 * be the one the client's types describe, so fields are looked for, not assumed.
 */
export type StripeJson = Record<string, unknown>;

export function objectOf(value: unknown): StripeJson | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as StripeJson) : null;
}

export function textOf(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** A reference Stripe may expand: the id itself, or the object that has it. */
export function idOf(reference: unknown): string | null {
  return textOf(reference) ?? textOf(objectOf(reference)?.id);
}

/** Stripe's timestamps are Unix seconds. */
export function dateOf(seconds: unknown): Date | null {
  return typeof seconds === 'number' && Number.isFinite(seconds) ? new Date(seconds * 1000) : null;
}

/** The value at `path` under `value`, through objects only. */
export function at(value: unknown, ...path: string[]): unknown {
  return path.reduce<unknown>((current, key) => objectOf(current)?.[key], value);
}

const STATUSES: readonly ProviderSubscriptionStatus[] = ['trialing', 'active', 'past_due', 'unpaid', 'canceled', 'incomplete', 'incomplete_expired', 'paused'];

/** A subscription as billing reads it. Its period end moved onto the items in API version 2025-03-31; older ones keep it on the subscription. */
export function providerSubscription(subscription: Stripe.Subscription): ProviderSubscription {
  const status = STATUSES.find((s) => s === subscription.status);
  const customerId = idOf(subscription.customer);
  if (!status || !customerId) {
    throw new ProviderUnavailable(`Stripe answered a subscription billing cannot read (${subscription.id}: status ${String(subscription.status)}, customer ${customerId ?? 'missing'}).`);
  }
  const item = subscription.items?.data?.[0];
  return {
    id: subscription.id,
    customerId,
    status,
    priceId: idOf(item?.price),
    currentPeriodEnd: dateOf(item?.current_period_end) ?? dateOf(at(subscription, 'current_period_end')),
    trialEnd: dateOf(subscription.trial_end),
    workspaceId: textOf(subscription.metadata?.workspace_id),
  };
}
