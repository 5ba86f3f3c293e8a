import type { IncomingHttpHeaders } from 'node:http';
import type { Db } from '../../core/db.ts';
import { inTransaction } from '../../core/db.ts';
import { KernelErrors } from '../../core/errors.ts';
import { UUID_PATTERN } from '../../core/schema.ts';
import type { Logger } from '../../core/logger.ts';
import type { CreditService } from './credits.service.ts';
import { BillingErrors } from './errors.ts';
import type { PaymentProvider, ProviderEvent, ProviderSubscription } from './hooks.ts';
import { asking, type SubscriptionService } from './subscriptions.service.ts';

const EVENTS = 'billing_events';

export interface WebhookReceipt {
  received: true;
  duplicate?: true;
  handled?: boolean;
}

/**
 * `POST /billing/webhooks/{provider}`: a provider's event, believed only with a good signature over its exact bytes,
 * acted on once per event id (stored with what it changed, in one transaction). Subscription events are applied from
 * the subscription as the provider holds it when the event arrives, never from the event's own copy.
 */
export class BillingWebhooks {
  constructor(private readonly deps: { db: Db; provider: () => PaymentProvider; subscriptions: SubscriptionService; credits: CreditService; logger: Logger; notifyAdmins: (trx: Db, workspaceId: string, type: string, data: Record<string, unknown>) => Promise<void> }) {}

  async receive(providerId: string, rawBody: Buffer, headers: IncomingHttpHeaders, now: number): Promise<WebhookReceipt> {
    const provider = this.deps.provider();
    if (providerId !== provider.id) throw KernelErrors.not_found(`No payment provider "${providerId}" is in use here.`);
    const event = provider.readWebhook({ rawBody, headers, now });
    if ('refused' in event) throw BillingErrors.bad_signature(event.refused);
    if (event.kind === 'ignored') return { received: true, handled: false };
    if (await this.deps.db(EVENTS).where({ provider: provider.id, event_id: event.id }).first('event_id')) return { received: true, duplicate: true };
    // What the provider holds now, read before the transaction: an unreachable provider answers 502 and stores nothing, so it sends the event again.
    const subscriptionId = subscriptionOf(event);
    const subscription = subscriptionId ? await asking(() => provider.getSubscription(subscriptionId)) : null;
    const workspaceId = subscription ? await this.deps.subscriptions.locate(subscription) : event.kind === 'checkout_completed' ? await this.deps.subscriptions.known(event.workspaceId) : null;
    return inTransaction(this.deps.db, async (trx) => {
      const stored = await trx(EVENTS).insert({ provider: provider.id, event_id: event.id, type: event.type, workspace_id: workspaceId }).onConflict(['provider', 'event_id']).ignore().returning('event_id');
      if (stored.length === 0) return { received: true, duplicate: true };
      await this.act(trx, event, workspaceId, subscription);
      return { received: true, handled: true };
    });
  }

  private async act(trx: Db, event: ProviderEvent, workspaceId: string | null, subscription: ProviderSubscription | null): Promise<void> {
    if (subscription && workspaceId) await this.deps.subscriptions.apply(trx, workspaceId, subscription);
    switch (event.kind) {
      case 'invoice_failed':
        if (workspaceId) await this.deps.notifyAdmins(trx, workspaceId, 'billing_payment_failed', { event_id: event.id });
        return;
      case 'payment_succeeded':
        if (event.purchaseId && UUID_PATTERN.test(event.purchaseId)) await this.deps.credits.complete(event.purchaseId, event.paymentId, trx);
        return;
      case 'payment_failed':
        if (event.purchaseId && UUID_PATTERN.test(event.purchaseId)) await this.deps.credits.fail(event.purchaseId, event.detail ?? 'The payment failed.', trx);
        return;
      default:
        return;
    }
  }
}

function subscriptionOf(event: ProviderEvent): string | null {
  switch (event.kind) {
    case 'checkout_completed':
      return event.subscriptionId;
    case 'subscription_changed':
      return event.subscriptionId;
    case 'invoice_paid':
    case 'invoice_failed':
      return event.subscriptionId;
    default:
      return null;
  }
}
