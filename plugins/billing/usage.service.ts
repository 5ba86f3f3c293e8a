import { inTransaction, type Db } from '../../core/db.ts';
import { UsageErrors, type UsageChange, type UsageHooks, type UsageMeter } from '../../core/usage.ts';
import { FREE, LIMIT_NAMES, meterOf, METER_LIMITS, type LimitName, type Plans } from './plans.ts';
import { monthOf, type Clock } from './periods.ts';

const TABLE = 'billing_usage';

/**
 * Counts what each workspace uses and holds writes to its plan's limits. A meter's count is one row per workspace (and
 * month, for monthly meters), seeded by asking the plugin that owns the meter, then raised and lowered by the writes
 * themselves: checking and counting is one statement on that row, so concurrent writes queue on it and exactly as many
 * fit as the limit leaves room for. A daily recount corrects any drift.
 */
export class UsageMeters {
  constructor(private readonly deps: { db: Db; hooks: UsageHooks; plans: Plans; clock: Clock }) {}

  /** `usage.rise`: counts the write in, or refuses it whole with `plan_limit_exceeded`. */
  async rise({ trx, workspaceId, meter, amount }: UsageChange): Promise<void> {
    const spec = meterOf(meter);
    if (!spec) return;
    const period = this.periodOf(meter);
    const limits = this.deps.plans.limitsOf(spec.limit);
    for (let attempt = 0; ; attempt++) {
      const { rows } = await trx.raw(
        `UPDATE ${TABLE} u SET used = u.used + ?
           FROM (SELECT coalesce((SELECT plan FROM billing_accounts WHERE workspace_id = ?), ?) AS plan) a
          WHERE u.workspace_id = ? AND u.meter = ? AND u.period = ?
            AND coalesce(u.used + ? <= (CASE WHEN jsonb_exists(?::jsonb, a.plan) THEN ?::jsonb ->> a.plan ELSE ?::jsonb ->> ? END)::bigint, true)
          RETURNING u.used`,
        [amount, workspaceId, FREE, workspaceId, meter, period, amount, JSON.stringify(limits), JSON.stringify(limits), JSON.stringify(limits), FREE],
      );
      if (rows.length > 0) return;
      const current = await trx(TABLE).where({ workspace_id: workspaceId, meter, period }).first('used');
      if (current || attempt > 0) {
        const plan = await this.planOf(trx, workspaceId);
        throw UsageErrors.plan_limit_exceeded({ meter, limit: this.deps.plans.limit(plan, spec.limit) ?? 0, used: Number(current?.used ?? 0), plan, adding: amount });
      }
      await this.seed(trx, workspaceId, meter, period);
    }
  }

  /** `usage.fall`: counts a removal out; a meter never yet counted is left to be counted when it is next needed. */
  async fall({ trx, workspaceId, meter, amount }: UsageChange): Promise<void> {
    if (!meterOf(meter)) return;
    await trx(TABLE)
      .where({ workspace_id: workspaceId, meter, period: this.periodOf(meter) })
      .update({ used: trx.raw('greatest(used - ?, 0)', [amount]) });
  }

  /** What the workspace uses of each limit now (AI credits come from the ledger: `creditsSpent`). */
  async usage(workspaceId: string, creditsSpent: number): Promise<Record<LimitName, number>> {
    const used = { members: 0, records: 0, storage_bytes: 0, automation_runs_per_month: 0, ai_credits_per_month: creditsSpent } as Record<LimitName, number>;
    for (const [meter, spec] of Object.entries(METER_LIMITS)) used[spec.limit] = await this.counted(workspaceId, meter);
    return used;
  }

  /** Each limit of the workspace's plan. */
  limits(plan: string): Record<LimitName, number | null> {
    return Object.fromEntries(LIMIT_NAMES.map((name) => [name, this.deps.plans.limit(plan, name)])) as Record<LimitName, number | null>;
  }

  /** Counts every meter of every workspace with a count afresh, in its own transaction each (the daily recount). */
  async recountAll(): Promise<number> {
    const counted = await this.deps.db(TABLE).where((q) => q.where('period', '').orWhere('period', monthOf(this.deps.clock.now()).key)).select('workspace_id', 'meter', 'period');
    for (const row of counted) {
      await inTransaction(this.deps.db, async (trx) => {
        // Held first: writes counted but not yet committed finish, so what is counted next includes them.
        const held = await trx(TABLE).where(row).forUpdate().first('used');
        if (!held) return;
        await trx(TABLE).where(row).update({ used: await this.measure(trx, row.workspace_id, row.meter) });
      });
    }
    return counted.length;
  }

  private async counted(workspaceId: string, meter: UsageMeter): Promise<number> {
    const period = this.periodOf(meter);
    const row = await this.deps.db(TABLE).where({ workspace_id: workspaceId, meter, period }).first('used');
    return row ? Number(row.used) : this.measure(this.deps.db, workspaceId, meter);
  }

  private async seed(trx: Db, workspaceId: string, meter: UsageMeter, period: string): Promise<void> {
    const used = await this.measure(trx, workspaceId, meter);
    await trx(TABLE).insert({ workspace_id: workspaceId, meter, period, used }).onConflict(['workspace_id', 'meter', 'period']).ignore();
  }

  private async measure(db: Db, workspaceId: string, meter: UsageMeter): Promise<number> {
    const owner = this.deps.hooks.measure.get(meter);
    const since = monthOf(this.deps.clock.now()).start;
    return (owner ? await owner.promise({ db, workspaceId, since }) : undefined) ?? 0;
  }

  private periodOf(meter: UsageMeter): string {
    return meterOf(meter)?.monthly ? monthOf(this.deps.clock.now()).key : '';
  }

  private async planOf(db: Db, workspaceId: string): Promise<string> {
    return (await db('billing_accounts').where({ workspace_id: workspaceId }).first('plan'))?.plan ?? FREE;
  }
}
