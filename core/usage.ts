import tapable from 'tapable';
import type { Db } from './db.ts';
import { AppError, defineErrors } from './errors.ts';

const { AsyncSeriesBailHook, AsyncSeriesHook, HookMap } = tapable;

/**
 * What a workspace uses, metered for plans: the plugin that owns a quantity says when it rises or falls and can count
 * it afresh; a plugin that enforces plans (billing) taps these. Without such a tap the calls cost nothing.
 *
 * Meters: `members` (memberships of any role), `records` (records not in the trash), `storage_bytes` (stored
 * files), `automation_runs` (runs started since `since`). A plugin may meter more under names of its own.
 */
export type UsageMeter = 'members' | 'records' | 'storage_bytes' | 'automation_runs' | (string & {});

/** A change in a meter, inside the transaction that makes it. */
export interface UsageChange {
  trx: Db;
  workspaceId: string;
  meter: UsageMeter;
  /** How much the write adds (`rise`) or takes away (`fall`); above zero. */
  amount: number;
}

/** What `measure` is asked: how much of its meter a workspace uses now (for a meter per period, since `since`). */
export interface UsageQuery {
  db: Db;
  workspaceId: string;
  since: Date;
}

export interface UsageHooks {
  /** Before a write that raises a meter, in its transaction: a tap refuses the whole write by throwing (402). */
  readonly rise: tapable.AsyncSeriesHook<[UsageChange]>;
  /** After a write that lowers a meter, in its transaction. */
  readonly fall: tapable.AsyncSeriesHook<[UsageChange]>;
  /** Keyed by meter; bail: the plugin owning the meter counts it. */
  readonly measure: tapable.HookMap<tapable.AsyncSeriesBailHook<[UsageQuery], number | undefined>>;
}

export function createUsageHooks(): UsageHooks {
  return {
    rise: new AsyncSeriesHook<[UsageChange]>(['change']),
    fall: new AsyncSeriesHook<[UsageChange]>(['change']),
    measure: new HookMap(() => new AsyncSeriesBailHook<[UsageQuery], number | undefined>(['query'])),
  };
}

/** Tells the enforcing plugin, if any, that a write raises `meter` by `amount`; refused writes throw `plan_limit_exceeded`. */
export async function raiseUsage(hooks: UsageHooks, trx: Db, workspaceId: string, meter: UsageMeter, amount: number): Promise<void> {
  if (amount > 0 && hooks.rise.isUsed()) await hooks.rise.promise({ trx, workspaceId, meter, amount });
}

/** Tells the enforcing plugin, if any, that a write lowers `meter` by `amount`. */
export async function lowerUsage(hooks: UsageHooks, trx: Db, workspaceId: string, meter: UsageMeter, amount: number): Promise<void> {
  if (amount > 0 && hooks.fall.isUsed()) await hooks.fall.promise({ trx, workspaceId, meter, amount });
}

/** Whether anything enforces usage: plugins skip counting what they would lower when nothing listens. */
export const usageWatched = (hooks: UsageHooks): boolean => hooks.rise.isUsed() || hooks.fall.isUsed();

export const UsageErrors = defineErrors({
  plan_limit_exceeded: {
    status: 402,
    when: "The write would take the workspace past its plan's limit (`meter`, `limit`, `used`, `plan`); nothing is written",
    create: (refusal: { meter: UsageMeter; limit: number; used: number; plan: string; adding: number }) => ({
      detail: `This would take ${refusal.meter} to ${refusal.used + refusal.adding}, past the ${refusal.plan} plan's limit of ${refusal.limit}.`,
      extensions: { meter: refusal.meter, limit: refusal.limit, used: refusal.used, plan: refusal.plan },
    }),
  },
});

/**
 * What a refusal tells someone who may not see the whole workspace (a guest, an anonymous form, an invitee not yet in):
 * that a limit was reached, not which, nor how much the workspace holds.
 */
export function redactedRefusal(err: unknown, memberRole: string | undefined): unknown {
  if (!(err instanceof AppError) || err.code !== UsageErrors.plan_limit_exceeded.code) return err;
  if (memberRole !== undefined && memberRole !== 'guest') return err;
  return new AppError({ status: err.status, code: err.code, title: err.title, detail: "This workspace has reached a limit of its plan; its admins can see which." });
}
