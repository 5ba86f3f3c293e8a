import { StartupError } from '../../core/errors.ts';
import type { UsageMeter } from '../../core/usage.ts';
import type { PlanConfig, PlanLimits } from './schemas.ts';

/** A limit of a plan, by the name plans and usage answers use. */
export type LimitName = keyof Required<PlanLimits>;
export const LIMIT_NAMES: LimitName[] = ['members', 'records', 'storage_bytes', 'automation_runs_per_month', 'ai_credits_per_month'];

/** The plan every workspace has when the instance has no billing. */
export const SELF_HOSTED = 'self_hosted';
export const FREE = 'free';

const GiB = 1024 ** 3;

/** Plans when `billing.plans` is not set; `pro` has no price until the operator gives it one. */
export const DEFAULT_PLANS: PlanConfig[] = [
  { id: FREE, name: 'Free', price_id: null, limits: { members: 5, records: 1_000, storage_bytes: GiB, automation_runs_per_month: 100, ai_credits_per_month: 100 } },
  { id: 'pro', name: 'Pro', price_id: null, limits: { members: 50, records: 50_000, storage_bytes: 20 * GiB, automation_runs_per_month: 25_000, ai_credits_per_month: 5_000 } },
];

/** The meters other plugins report (core/usage.ts), each with the limit that caps it; monthly ones count per calendar month. */
export const METER_LIMITS: Record<string, { limit: LimitName; monthly: boolean }> = {
  members: { limit: 'members', monthly: false },
  records: { limit: 'records', monthly: false },
  storage_bytes: { limit: 'storage_bytes', monthly: false },
  automation_runs: { limit: 'automation_runs_per_month', monthly: true },
};

export const meterOf = (meter: UsageMeter) => METER_LIMITS[meter];

/** The configured plans, checked once at start. */
export class Plans {
  private readonly byId: Map<string, PlanConfig>;

  constructor(plans: PlanConfig[], readonly trialPlan: string) {
    this.byId = new Map();
    for (const plan of plans) {
      if (this.byId.has(plan.id)) throw new StartupError(`billing.plans names plan "${plan.id}" twice.`, 'plugin_options_invalid', ['billing']);
      this.byId.set(plan.id, plan);
    }
    if (!this.byId.has(FREE)) throw new StartupError('billing.plans must include the plan "free".', 'plugin_options_invalid', ['billing']);
    if (!this.byId.has(trialPlan)) throw new StartupError(`billing.trialPlan "${trialPlan}" is not one of billing.plans.`, 'plugin_options_invalid', ['billing']);
    const prices = plans.map((p) => p.price_id).filter(Boolean);
    if (new Set(prices).size !== prices.length) throw new StartupError('Two of billing.plans have the same price_id.', 'plugin_options_invalid', ['billing']);
  }

  get(id: string): PlanConfig {
    return this.byId.get(id) ?? this.byId.get(FREE)!;
  }

  find(id: string): PlanConfig | undefined {
    return this.byId.get(id);
  }

  byPrice(priceId: string | null): PlanConfig | undefined {
    return priceId ? [...this.byId.values()].find((p) => p.price_id === priceId) : undefined;
  }

  /** A plan's limit; null when the plan has none. */
  limit(planId: string, name: LimitName): number | null {
    return this.get(planId).limits[name] ?? null;
  }

  /** Each plan's limit of `name`, for the statement that checks and counts in one go. */
  limitsOf(name: LimitName): Record<string, number | null> {
    return Object.fromEntries([...this.byId.values()].map((p) => [p.id, p.limits[name] ?? null]));
  }
}
