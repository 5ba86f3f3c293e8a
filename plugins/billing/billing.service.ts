import type { Db } from '../../core/db.ts';
import { accountOf } from './accounts.ts';
import { balanceOf, type CreditService } from './credits.service.ts';
import { BillingErrors } from './errors.ts';
import { monthOf, type Clock } from './periods.ts';
import { SELF_HOSTED } from './plans.ts';
import type { Billing, Usage } from './schemas.ts';
import type { UsageMeters } from './usage.service.ts';

/** What `GET …/billing` and `GET …/billing/usage` answer; with no provider, only that there is no billing. */
export class BillingService {
  constructor(private readonly deps: { db: Db; enabled: boolean; meters: UsageMeters; credits: CreditService; clock: Clock }) {}

  /** Refuses with `billing_disabled` when the instance has no billing. */
  needEnabled(): void {
    if (!this.deps.enabled) throw BillingErrors.billing_disabled();
  }

  async view(workspaceId: string): Promise<Billing> {
    if (!this.deps.enabled) return { enabled: false, plan: SELF_HOSTED };
    // Reading the balance gives this month's grant first, so the answer is what a debit would see.
    await this.deps.credits.balance(workspaceId);
    const account = await accountOf(this.deps.db, workspaceId);
    return {
      enabled: true,
      plan: account.plan,
      status: account.status,
      trial_ends_at: iso(account.trial_ends_at),
      trial_used: account.trial_used,
      current_period_end: iso(account.current_period_end),
      seats: await this.deps.meters.used(workspaceId, 'members'),
      credits: {
        balance: balanceOf(account),
        auto_reload: {
          enabled: account.auto_reload_enabled,
          threshold: Number(account.auto_reload_threshold),
          amount: Number(account.auto_reload_amount),
          failed_at: iso(account.auto_reload_failed_at),
        },
      },
    };
  }

  async usage(workspaceId: string): Promise<Usage> {
    this.needEnabled();
    const account = await accountOf(this.deps.db, workspaceId);
    const month = monthOf(this.deps.clock.now());
    return {
      plan: account.plan,
      period_start: month.start.toISOString(),
      period_end: month.end.toISOString(),
      usage: await this.deps.meters.usage(workspaceId, await this.deps.credits.spentThisMonth(workspaceId)),
      limits: this.deps.meters.limits(account.plan),
    };
  }
}

const iso = (at: Date | null) => (at ? new Date(at).toISOString() : null);
