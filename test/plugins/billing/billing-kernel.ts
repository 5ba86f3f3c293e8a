import { signUp, startTestKernel, type SignedUpUser, type TestKernel, type TestKernelOptions } from '../../../core/testing.ts';
import type { Clock } from '../../../plugins/billing/periods.ts';
import { startStripeServer, type FakeStripe } from '../payments-stripe/stripe-server.ts';

export const WEBHOOK_SECRET = 'whsec_billing_tests_0123456789';
export const PRO_PRICE = 'price_pro_monthly';
export const TEAM_PRICE = 'price_team_monthly';

/** Small plans, so that tests reach every limit in a few writes. */
export const PLANS = [
  { id: 'free', name: 'Free', price_id: null, limits: { members: 3, records: 10, storage_bytes: 20_000, automation_runs_per_month: 2, ai_credits_per_month: 50 } },
  { id: 'pro', name: 'Pro', price_id: PRO_PRICE, limits: { members: 10, records: 100, storage_bytes: 1_000_000, automation_runs_per_month: 100, ai_credits_per_month: 1_000 } },
  { id: 'team', name: 'Team', price_id: TEAM_PRICE, limits: { members: null, records: null, storage_bytes: null, automation_runs_per_month: null, ai_credits_per_month: null } },
];

/** A kernel whose billing is on, paid through Stripe at `stripe` (a loopback server speaking Stripe's API). */
export function startBillingKernel(stripe: FakeStripe, opts: { billing?: Record<string, unknown>; config?: TestKernelOptions['config'] } = {}): Promise<TestKernel> {
  const config = opts.config ?? {};
  return startTestKernel({
    ...opts,
    config: {
      ...config,
      plugins: {
        ...(config.plugins ?? {}),
        billing: { options: { provider: 'stripe', plans: PLANS, ...opts.billing } },
        'payments-stripe': { options: { secretKey: stripe.secretKey, webhookSecret: WEBHOOK_SECRET, apiUrl: stripe.url } },
      },
    },
  });
}

/** The billing plugin's clock, moved to wherever a test needs it to be. */
export function setClock(t: TestKernel, at: Date | null): void {
  const clock = t.kernel.container.resolverFor('billing')('billing.clock') as Clock;
  clock.now = at ? () => new Date(at) : () => new Date();
}

/** A loopback Stripe, a kernel billing through it, and the kernel's first account (its instance admin). */
export interface BillingWorld {
  stripe: FakeStripe;
  t: TestKernel;
  admin: SignedUpUser;
  stop(): Promise<void>;
}

export async function startBillingWorld(opts: Parameters<typeof startBillingKernel>[1] & { adminName?: string } = {}): Promise<BillingWorld> {
  const stripe = await startStripeServer();
  const t = await startBillingKernel(stripe, opts);
  const admin = await signUp(t, opts.adminName ? { name: opts.adminName } : {});
  return {
    stripe,
    t,
    admin,
    stop: async () => {
      await t.stop();
      await stripe.close();
    },
  };
}
