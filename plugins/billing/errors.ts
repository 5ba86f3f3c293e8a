import { defineErrors } from '../../core/errors.ts';

/** The codes only the billing plugin answers with; `plan_limit_exceeded` is the kernel's (core/usage.ts): every metered write may answer it. */
export const BillingErrors = defineErrors({
  billing_disabled: {
    status: 404,
    when: 'No payment provider is configured: the instance has no billing',
    create: () => 'Billing is not enabled on this server.',
  },
  trial_used: { status: 409, when: 'The workspace has had its trial', create: () => 'This workspace has already had its trial.' },
  subscription_exists: {
    status: 409,
    when: 'The workspace already pays for a subscription: manage it in the portal',
    create: () => 'This workspace already has a subscription; change it in the billing portal.',
  },
  plan_not_purchasable: {
    status: 422,
    when: 'The plan is unknown, free, or has no price at the provider',
    create: (plan: string) => ({ detail: `Plan "${plan}" cannot be bought.`, errors: [{ pointer: '/plan', detail: 'Name a plan of `billing.plans` that has a `price_id`.' }] }),
  },
  credits_exhausted: {
    status: 402,
    when: 'The AI credits left (`balance`) cannot pay for what is asked (`needed`)',
    create: (balance: number, needed: number) => ({ detail: `${needed} AI credits are needed and ${balance} are left.`, extensions: { balance, needed } }),
  },
  uneven_amount: {
    status: 422,
    when: "The credits' price does not come to a whole number of the currency's smallest unit",
    create: (amount: number, unitAmount: number) => ({
      detail: `${amount} credits at ${unitAmount} each is not a whole amount to charge.`,
      errors: [{ pointer: '/amount', detail: `Choose an amount whose price (amount × ${unitAmount}) is a whole number.` }],
    }),
  },
  no_customer: {
    status: 422,
    when: 'Automatic reloads need a payment method: the workspace has no customer at the provider yet',
    create: () => ({
      detail: 'This workspace has no customer at the payment provider yet; subscribe or open the billing portal to add a payment method first.',
      errors: [{ pointer: '/enabled', detail: 'Add a payment method before turning automatic reloads on.' }],
    }),
  },
  bad_signature: {
    status: 401,
    when: "The webhook's signature is missing or wrong, or its timestamp is outside the provider's tolerance; nothing is stored",
    create: (reason: string) => reason,
  },
  provider_unavailable: {
    status: 502,
    when: 'The payment provider could not be reached or refused the call; nothing was changed',
    create: (detail: string) => `The payment provider failed: ${detail}`,
  },
});
