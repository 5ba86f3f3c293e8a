import { definePlugin, type Plugin } from '../../core/plugin.ts';
import { DEFAULT_API_URL, StripeOptions } from './schemas.ts';
import { stripeProvider } from './stripe-provider.ts';

/**
 * Stripe as a billing payment provider (`stripe`): subscriptions through Checkout and the Customer Portal, credit
 * purchases charged to the saved card, and Stripe's signed webhook events. Without a secret key it adds nothing.
 */
export function createStripePlugin(): Plugin<StripeOptions> {
  return definePlugin<StripeOptions>({
    id: 'payments-stripe',
    version: '1.0.0',
    kernel: '^1.0.0',
    dependsOn: { billing: '^1.0.0' },
    optionsSchema: StripeOptions,
    register(ctx) {
      const { secretKey, webhookSecret, apiUrl = DEFAULT_API_URL } = ctx.options;
      if (!secretKey) return;
      const provider = stripeProvider({ secretKey, webhookSecret, apiUrl });
      ctx.hooksOf('billing.providers').providers.tap('payments-stripe', (list) => [...list, provider]);
    },
  });
}

export default createStripePlugin();
