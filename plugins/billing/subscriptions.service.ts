import type { Db } from '../../core/db.ts';
import { inTransaction } from '../../core/db.ts';
import { KernelErrors } from '../../core/errors.ts';
import { UUID_PATTERN } from '../../core/schema.ts';
import type { Logger } from '../../core/logger.ts';
import { accountOf, ACCOUNTS, heldAccount, LIVE_STATUSES, updateAccount, type AccountRow } from './accounts.ts';
import { BillingErrors } from './errors.ts';
import { PaymentDeclined, ProviderUnavailable, type PaymentProvider, type ProviderSubscription, type ProviderSubscriptionStatus } from './hooks.ts';
import type { Clock } from './periods.ts';
import { FREE, type Plans } from './plans.ts';
import type { BillingStatus } from './schemas.ts';

const DAY_MS = 86_400_000;

/** What the provider's statuses mean here; null: not decided yet (a first payment under way), nothing changes. */
const STATUS_OF: Record<ProviderSubscriptionStatus, BillingStatus | null> = {
  trialing: 'trialing',
  active: 'active',
  past_due: 'past_due',
  unpaid: 'past_due',
  paused: 'past_due',
  canceled: 'canceled',
  incomplete_expired: 'canceled',
  incomplete: null,
};

/** Calls the provider, turning its failures into a 502 with its detail (an unreachable provider, or a refusal). */
export async function asking<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ProviderUnavailable || err instanceof PaymentDeclined) throw BillingErrors.provider_unavailable(err.detail);
    throw err;
  }
}

/**
 * A workspace's plan over time: the trial, checkout and the portal at the provider, and the subscription state the
 * provider reports — always read afresh from the provider, so events that arrive late or twice change nothing.
 */
export class SubscriptionService {
  constructor(private readonly deps: { db: Db; plans: Plans; provider: () => PaymentProvider; clock: Clock; trialDays: number; logger: Logger; workspace: (id: string) => Promise<{ name: string } | undefined>; capTo: (trx: Db, workspaceIds: string[], plan: string) => Promise<void> }) {}

  /** `POST …/billing/trial`: the trial plan for `trialDays`, once per workspace. */
  async startTrial(workspaceId: string): Promise<void> {
    await inTransaction(this.deps.db, async (trx) => {
      const account = await heldAccount(trx, workspaceId);
      if (account.trial_used) throw BillingErrors.trial_used();
      if (paying(account)) throw BillingErrors.subscription_exists();
      const endsAt = new Date(this.deps.clock.now().getTime() + this.deps.trialDays * DAY_MS);
      await updateAccount(trx, workspaceId, { plan: this.deps.plans.trialPlan, status: 'trialing', trial_used: true, trial_ends_at: endsAt });
      await this.deps.capTo(trx, [workspaceId], this.deps.plans.trialPlan);
    });
  }

  /** Trials of ours that are over go back to `free`; a workspace that subscribed meanwhile follows its subscription. */
  async endTrials(): Promise<number> {
    return inTransaction(this.deps.db, async (trx) => {
      const ended: Array<{ workspace_id: string }> = await trx(ACCOUNTS)
        .where({ status: 'trialing' })
        .whereNull('subscription_id')
        .where('trial_ends_at', '<=', this.deps.clock.now())
        .update({ plan: FREE, status: 'free', updated_at: trx.fn.now() })
        .returning('workspace_id');
      await this.deps.capTo(trx, ended.map((a) => a.workspace_id), FREE);
      return ended.length;
    });
  }

  /** `POST …/billing/checkout-session`: the provider's page that starts a subscription (the rest of a trial stays free). */
  async checkout(workspaceId: string, input: { plan: string; success_url: string; cancel_url: string }): Promise<{ url: string }> {
    const plan = this.deps.plans.find(input.plan);
    if (!plan?.price_id || plan.id === FREE) throw BillingErrors.plan_not_purchasable(input.plan);
    const account = await accountOf(this.deps.db, workspaceId);
    if (paying(account)) throw BillingErrors.subscription_exists();
    const customerId = await this.customerOf(account);
    const now = this.deps.clock.now();
    const trialLeft = account.status === 'trialing' && account.trial_ends_at && account.trial_ends_at > now ? Math.ceil((account.trial_ends_at.getTime() - now.getTime()) / DAY_MS) : null;
    const session = await asking(() =>
      this.deps.provider().createCheckoutSession({ customerId, workspaceId, priceId: plan.price_id!, successUrl: input.success_url, cancelUrl: input.cancel_url, trialDays: trialLeft }),
    );
    return { url: session.url };
  }

  /** `POST …/billing/portal-session`: the provider's page for payment methods, invoices and the subscription. */
  async portal(workspaceId: string, returnUrl: string): Promise<{ url: string }> {
    const customerId = await this.customerOf(await accountOf(this.deps.db, workspaceId));
    return asking(() => this.deps.provider().createPortalSession({ customerId, returnUrl }));
  }

  /** The workspace a subscription pays for: named in its metadata, else found by the subscription or customer id; null when none here. */
  async locate(subscription: ProviderSubscription): Promise<string | null> {
    const workspaceId = await this.known(subscription.workspaceId ?? (await this.workspaceOf(subscription)));
    if (!workspaceId) this.deps.logger.warn({ subscription: subscription.id }, 'a subscription of no workspace here: ignored');
    return workspaceId;
  }

  /** `workspaceId` when it names a workspace of this instance (a provider's metadata may say anything). */
  async known(workspaceId: string | null): Promise<string | null> {
    return workspaceId && UUID_PATTERN.test(workspaceId) && (await this.deps.workspace(workspaceId)) ? workspaceId : null;
  }

  /** Applies the subscription as the provider holds it now to the workspace's plan and status. */
  async apply(trx: Db, workspaceId: string, subscription: ProviderSubscription): Promise<void> {
    const account = await heldAccount(trx, workspaceId);
    const status = STATUS_OF[subscription.status];
    // A late word about an earlier subscription does not end the one the workspace pays for now.
    if (account.subscription_id && account.subscription_id !== subscription.id && paying(account) && status !== 'active' && status !== 'trialing') return;
    if (status === null) {
      await updateAccount(trx, workspaceId, { customer_id: account.customer_id ?? subscription.customerId });
      return;
    }
    const live = LIVE_STATUSES.includes(status);
    const plan = live ? (this.deps.plans.byPrice(subscription.priceId)?.id ?? account.plan) : FREE;
    if (live && !this.deps.plans.byPrice(subscription.priceId)) this.deps.logger.warn({ subscription: subscription.id, price: subscription.priceId }, 'a subscription to a price no plan names: the plan stays');
    await updateAccount(trx, workspaceId, {
      plan,
      status,
      subscription_id: subscription.id,
      customer_id: account.customer_id ?? subscription.customerId,
      current_period_end: subscription.currentPeriodEnd,
      trial_ends_at: status === 'trialing' ? subscription.trialEnd : account.trial_ends_at,
    });
    if (plan !== account.plan) await this.deps.capTo(trx, [workspaceId], plan);
  }

  /** The daily reconciliation: every subscription is read again from the provider and applied; returns how many were read. */
  async reconcile(): Promise<number> {
    const accounts: Array<{ workspace_id: string; subscription_id: string }> = await this.deps.db(ACCOUNTS).whereNotNull('subscription_id').select('workspace_id', 'subscription_id');
    let read = 0;
    for (const account of accounts) {
      try {
        const subscription = await this.deps.provider().getSubscription(account.subscription_id);
        const workspaceId = subscription ? await this.locate(subscription) : account.workspace_id;
        await inTransaction(this.deps.db, async (trx) => {
          if (!subscription) await this.forget(trx, account.workspace_id, account.subscription_id);
          else if (workspaceId) await this.apply(trx, workspaceId, subscription);
        });
        read++;
      } catch (err) {
        if (!(err instanceof ProviderUnavailable)) throw err;
        this.deps.logger.warn({ workspace: account.workspace_id, detail: err.detail }, 'a subscription could not be read again; it is tried at the next reconciliation');
      }
    }
    return read;
  }

  /** A subscription the provider no longer knows: the workspace goes back to free. */
  private async forget(trx: Db, workspaceId: string, subscriptionId: string): Promise<void> {
    const account = await heldAccount(trx, workspaceId);
    if (account.subscription_id !== subscriptionId) return;
    await updateAccount(trx, workspaceId, { plan: FREE, status: 'canceled', subscription_id: null });
    await this.deps.capTo(trx, [workspaceId], FREE);
  }

  private async workspaceOf(subscription: ProviderSubscription): Promise<string | null> {
    const row = await this.deps.db(ACCOUNTS).where({ subscription_id: subscription.id }).orWhere({ customer_id: subscription.customerId }).first('workspace_id');
    return row?.workspace_id ?? null;
  }

  /** The provider's customer for the workspace, made once (the idempotency key keeps two requests to one customer). */
  private async customerOf(account: AccountRow): Promise<string> {
    if (account.customer_id) return account.customer_id;
    const name = (await this.deps.workspace(account.workspace_id))?.name ?? account.workspace_id;
    const customer = await asking(() => this.deps.provider().createCustomer({ workspaceId: account.workspace_id, name, idempotencyKey: `workspace-customer-${account.workspace_id}` }));
    await this.deps.db(ACCOUNTS).where({ workspace_id: account.workspace_id }).whereNull('customer_id').update({ customer_id: customer.id });
    const stored = await this.deps.db(ACCOUNTS).where({ workspace_id: account.workspace_id }).first('customer_id');
    if (!stored?.customer_id) throw KernelErrors.not_found();
    return stored.customer_id;
  }
}

/** The workspace pays through a subscription (a trial of ours alone is not one). */
export function paying(account: AccountRow): boolean {
  return account.subscription_id !== null && LIVE_STATUSES.includes(account.status);
}
