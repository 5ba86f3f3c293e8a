/** What payment-provider plugins and the plugins that spend AI credits (agents) may import from this one. */
export { PaymentDeclined, ProviderUnavailable } from './hooks.ts';
export type { BillingProviderHooks, CreditCharge, PaymentProvider, ProviderEvent, ProviderSubscription, ProviderSubscriptionStatus, WebhookRefusal } from './hooks.ts';
