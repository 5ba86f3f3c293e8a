import { pageQuery } from '../../core/pagination.ts';
import { Type, type Static } from '../../core/schema.ts';

const Limit = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'null: no limit.' });

export const PlanLimits = Type.Object(
  {
    members: Type.Optional(Limit),
    records: Type.Optional(Limit),
    storage_bytes: Type.Optional(Limit),
    automation_runs_per_month: Type.Optional(Limit),
    ai_credits_per_month: Type.Optional(Limit),
  },
  { additionalProperties: false },
);
export type PlanLimits = Static<typeof PlanLimits>;

export const PlanConfig = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z][a-z0-9_-]{0,39}$' }),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    price_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()], { description: "The provider's recurring price; without one the plan cannot be bought." })),
    limits: PlanLimits,
  },
  { additionalProperties: false },
);
export type PlanConfig = Static<typeof PlanConfig>;

export const BillingOptions = Type.Object(
  {
    provider: Type.Optional(Type.String({ minLength: 1, description: 'The payment provider in use (`stripe`, with the payments-stripe plugin). Unset: no billing at all.' })),
    plans: Type.Optional(Type.Array(PlanConfig, { minItems: 1, description: 'Must include `free` (where workspaces start and return) and the trial plan.' })),
    trialPlan: Type.Optional(Type.String({ default: 'pro', description: 'The plan a trial gives.' })),
    trialDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 30 })),
    creditCurrency: Type.Optional(Type.String({ pattern: '^[a-z]{3}$', default: 'usd', description: 'ISO 4217, lower case, as the provider takes it.' })),
    creditUnitAmount: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, default: 1, description: "What one AI credit costs, in the currency's smallest unit (cents); a purchase's total must come to a whole number of them." }),
    ),
  },
  { additionalProperties: false },
);
export type BillingOptions = Static<typeof BillingOptions>;

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const HttpUrl = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000 });

export const STATUSES = ['free', 'trialing', 'active', 'past_due', 'canceled'] as const;
export type BillingStatus = (typeof STATUSES)[number];

export const WorkspaceParams = Type.Object({ ws: Uuid });
export const ProviderParams = Type.Object({ provider: Type.String({ minLength: 1, maxLength: 64 }) });

export const AutoReload = Type.Object({
  enabled: Type.Boolean(),
  threshold: Type.Integer({ minimum: 0, description: 'A purchase is made when the balance falls below this.' }),
  amount: Type.Integer({ minimum: 0, description: 'Credits bought each time.' }),
  /** Set when a purchase failed: auto-reload waits until it is saved again. */
  failed_at: Type.Union([Timestamp, Type.Null()], { description: 'When the last automatic purchase failed; reloading resumes once the setting is saved again.' }),
});

export const Credits = Type.Object({ balance: Type.Integer(), auto_reload: AutoReload });

export const Billing = Type.Object({
  enabled: Type.Boolean(),
  plan: Type.String(),
  status: Type.Optional(Type.Unsafe<BillingStatus>({ type: 'string', enum: [...STATUSES] })),
  trial_ends_at: Type.Optional(Type.Union([Timestamp, Type.Null()])),
  trial_used: Type.Optional(Type.Boolean()),
  current_period_end: Type.Optional(Type.Union([Timestamp, Type.Null()])),
  seats: Type.Optional(Type.Integer({ description: 'Members of the workspace, guests included.' })),
  credits: Type.Optional(Credits),
});
export type Billing = Static<typeof Billing>;

const Amounts = Type.Object({
  members: Type.Integer(),
  records: Type.Integer(),
  storage_bytes: Type.Integer(),
  automation_runs_per_month: Type.Integer(),
  ai_credits_per_month: Type.Integer(),
});
const LimitAmounts = Type.Object({
  members: Limit,
  records: Limit,
  storage_bytes: Limit,
  automation_runs_per_month: Limit,
  ai_credits_per_month: Limit,
});
export const Usage = Type.Object({ plan: Type.String(), period_start: Timestamp, period_end: Timestamp, usage: Amounts, limits: LimitAmounts });
export type Usage = Static<typeof Usage>;

export const CheckoutBody = Type.Object(
  { plan: Type.String({ minLength: 1, maxLength: 40 }), success_url: HttpUrl, cancel_url: HttpUrl },
  { additionalProperties: false },
);
export const PortalBody = Type.Object({ return_url: HttpUrl }, { additionalProperties: false });
export const SessionUrl = Type.Object({ url: Type.String() });
export const AutoReloadBody = Type.Object(
  { enabled: Type.Boolean(), threshold: Type.Integer({ minimum: 0, maximum: 1_000_000_000 }), amount: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }) },
  { additionalProperties: false },
);
export type AutoReloadBody = Static<typeof AutoReloadBody>;

export const LEDGER_REASONS = ['grant', 'expiry', 'purchase', 'debit'] as const;
export type LedgerReason = (typeof LEDGER_REASONS)[number];
export const LedgerEntry = Type.Object({
  id: Uuid,
  amount: Type.Integer({ description: 'Credits added (above zero) or taken (below).' }),
  balance: Type.Integer({ description: 'The balance once this entry was made.' }),
  reason: Type.Unsafe<LedgerReason>({ type: 'string', enum: [...LEDGER_REASONS] }),
  detail: Type.String(),
  ref: Type.Union([Type.String(), Type.Null()], { description: 'What it is about: the agent run, the purchase, the period.' }),
  created_at: Timestamp,
});
export type LedgerEntry = Static<typeof LedgerEntry>;
export const LedgerQuery = pageQuery();
export const WebhookReceipt = Type.Object({ received: Type.Boolean(), duplicate: Type.Optional(Type.Boolean()), handled: Type.Optional(Type.Boolean()) });
