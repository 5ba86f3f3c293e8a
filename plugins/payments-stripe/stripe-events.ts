import type { ProviderEvent, WebhookRefusal } from '../billing/public.ts';
import { at, dateOf, idOf, objectOf, textOf, type StripeJson } from './stripe-objects.ts';

const NOT_AN_EVENT: WebhookRefusal = { refused: 'The body is not a Stripe event.' };

const SUBSCRIPTION_EVENTS = new Set([
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.paused',
  'customer.subscription.resumed',
  'customer.subscription.trial_will_end',
]);

/** What an event says, without the envelope every event has (`Omit` taken over each member of the union). */
type WithoutEnvelope<E> = E extends unknown ? Omit<E, 'id' | 'type' | 'created'> : never;
type EventKind = WithoutEnvelope<ProviderEvent>;

/** The subscription an invoice bills: `subscription` until API version 2025-03-31, `parent.subscription_details.subscription` since. */
function invoiceSubscription(invoice: StripeJson): string | null {
  return idOf(invoice.subscription) ?? idOf(at(invoice, 'parent', 'subscription_details', 'subscription'));
}

function kindOf(type: string, object: StripeJson): EventKind | null {
  if (type === 'checkout.session.completed') {
    // One-off payments made through Checkout elsewhere on the account are none of billing's business.
    if (object.mode !== 'subscription') return { kind: 'ignored' };
    return {
      kind: 'checkout_completed',
      workspaceId: textOf(object.client_reference_id) ?? textOf(at(object, 'metadata', 'workspace_id')),
      customerId: idOf(object.customer),
      subscriptionId: idOf(object.subscription),
    };
  }
  if (SUBSCRIPTION_EVENTS.has(type)) {
    const subscriptionId = idOf(object.id);
    return subscriptionId ? { kind: 'subscription_changed', subscriptionId } : null;
  }
  if (type === 'invoice.paid' || type === 'invoice.payment_succeeded') return { kind: 'invoice_paid', subscriptionId: invoiceSubscription(object) };
  if (type === 'invoice.payment_failed') return { kind: 'invoice_failed', subscriptionId: invoiceSubscription(object) };
  if (type === 'payment_intent.succeeded' || type === 'payment_intent.payment_failed') {
    const paymentId = idOf(object.id);
    if (!paymentId) return null;
    return {
      kind: type === 'payment_intent.succeeded' ? 'payment_succeeded' : 'payment_failed',
      paymentId,
      purchaseId: textOf(at(object, 'metadata', 'purchase_id')),
      detail: textOf(at(object, 'last_payment_error', 'message')),
    };
  }
  return { kind: 'ignored' };
}

/** A delivery's body, its signature already checked, read into the event billing acts on. */
export function readStripeEvent(body: string): ProviderEvent | WebhookRefusal {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return NOT_AN_EVENT;
  }
  const id = textOf(at(parsed, 'id'));
  const type = textOf(at(parsed, 'type'));
  const created = dateOf(at(parsed, 'created'));
  const object = objectOf(at(parsed, 'data', 'object'));
  if (at(parsed, 'object') !== 'event' || !id || !type || !created || !object) return NOT_AN_EVENT;
  const kind = kindOf(type, object);
  return kind ? { id, type, created, ...kind } : NOT_AN_EVENT;
}
