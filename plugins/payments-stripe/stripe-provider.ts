import type Stripe from 'stripe';
import { PaymentDeclined, ProviderUnavailable, type CreditCharge, type PaymentProvider } from '../billing/public.ts';
import { DEFAULT_API_URL } from './schemas.ts';
import { isMissing, isRefusedRequest, providerFailure, stripeClient } from './stripe-client.ts';
import { readStripeEvent } from './stripe-events.ts';
import { idOf, providerSubscription } from './stripe-objects.ts';
import { signatureRefusal } from './webhook-signature.ts';

export interface StripeProviderOptions {
  secretKey: string;
  /** The webhook endpoint's signing secret; without it every delivery is refused. */
  webhookSecret?: string;
  apiUrl?: string;
  timeoutMs?: number;
}

/** Statuses of a PaymentIntent that mean the charge did not go through and needs the customer. */
const NEEDS_THE_CUSTOMER = new Set(['requires_payment_method', 'requires_action', 'requires_confirmation', 'canceled']);

/** Stripe as billing's payment provider, through the official client. */
export function stripeProvider(options: StripeProviderOptions): PaymentProvider {
  const { secretKey, webhookSecret } = options;
  const stripe = stripeClient({ secretKey, apiUrl: options.apiUrl ?? DEFAULT_API_URL, timeoutMs: options.timeoutMs ?? 20_000 });

  async function call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw providerFailure(error, secretKey);
    }
  }

  /**
   * A charge Stripe refuses as asked (400: an amount below its minimum, a currency the account cannot take) fails for
   * good like a declined card; sending the same request again would only be refused again.
   */
  async function refusedAsDeclined<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (isRefusedRequest(error)) throw new PaymentDeclined(providerFailure(error, secretKey).message);
      throw providerFailure(error, secretKey);
    }
  }

  /** The customer's saved payment method: the default for invoices, else a card Checkout left on the customer. */
  async function savedPaymentMethod(customerId: string): Promise<string> {
    const customer = await call(() => stripe.customers.retrieve(customerId));
    if (customer.deleted) throw new ProviderUnavailable(`Stripe's customer ${customerId} was deleted.`);
    const preferred = idOf(customer.invoice_settings?.default_payment_method);
    if (preferred) return preferred;
    // Checkout makes a card the subscription's default, not the customer's: it is found among the customer's cards.
    const cards = await call(() => stripe.paymentMethods.list({ customer: customerId, type: 'card', limit: 1 }));
    const card = cards.data[0]?.id;
    if (!card) throw new PaymentDeclined('The customer has no saved payment method.');
    return card;
  }

  return {
    id: 'stripe',
    name: 'Stripe',

    async createCustomer({ workspaceId, name, idempotencyKey }) {
      const customer = await call(() => stripe.customers.create({ name, metadata: { workspace_id: workspaceId } }, { idempotencyKey }));
      return { id: customer.id };
    },

    async createCheckoutSession({ customerId, workspaceId, priceId, successUrl, cancelUrl, trialDays }) {
      const session = await call(() =>
        stripe.checkout.sessions.create({
          mode: 'subscription',
          customer: customerId,
          client_reference_id: workspaceId,
          line_items: [{ price: priceId, quantity: 1 }],
          success_url: successUrl,
          cancel_url: cancelUrl,
          subscription_data: { metadata: { workspace_id: workspaceId }, ...(trialDays ? { trial_period_days: trialDays } : {}) },
          metadata: { workspace_id: workspaceId },
        }),
      );
      if (!session.url) throw new ProviderUnavailable(`Stripe made checkout session ${session.id} without a URL to send the customer to.`);
      return { id: session.id, url: session.url };
    },

    async createPortalSession({ customerId, returnUrl }) {
      const session = await call(() => stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl }));
      return { url: session.url };
    },

    async getSubscription(id) {
      let subscription: Stripe.Subscription;
      try {
        subscription = await stripe.subscriptions.retrieve(id);
      } catch (error) {
        if (isMissing(error)) return null;
        throw providerFailure(error, secretKey);
      }
      return providerSubscription(subscription);
    },

    async chargeCredits(charge: CreditCharge) {
      const paymentMethod = await savedPaymentMethod(charge.customerId);
      const intent = await refusedAsDeclined(() =>
        stripe.paymentIntents.create(
          {
            amount: charge.amount,
            currency: charge.currency.toLowerCase(),
            customer: charge.customerId,
            payment_method: paymentMethod,
            off_session: true,
            confirm: true,
            // Nobody is there to follow a redirect; without this Stripe asks for a return_url to confirm.
            automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
            description: `${charge.credits} credits`,
            metadata: { workspace_id: charge.workspaceId, purchase_id: charge.purchaseId, credits: String(charge.credits) },
          },
          { idempotencyKey: charge.idempotencyKey },
        ),
      );
      if (intent.status === 'succeeded') return { paymentId: intent.id, status: 'succeeded' };
      // A bank debit (SEPA, ACH) settles days later: billing waits for the payment's event.
      if (intent.status === 'processing') return { paymentId: intent.id, status: 'processing' };
      if (NEEDS_THE_CUSTOMER.has(intent.status)) {
        throw new PaymentDeclined(intent.last_payment_error?.message ?? `The payment needs the customer (Stripe status ${intent.status}).`);
      }
      throw new ProviderUnavailable(`Stripe left payment ${intent.id} in status ${intent.status}.`);
    },

    readWebhook({ rawBody, headers, now }) {
      const refused = signatureRefusal({ rawBody, headers, secret: webhookSecret, now });
      return refused ? { refused } : readStripeEvent(rawBody.toString('utf8'));
    },
  };
}
