import { inTransaction, type Database, type Db } from '../../core/db.ts';
import { UsageErrors, type UsageChange, type UsageHooks, type UsageMeter } from '../../core/usage.ts';
import { FREE, LIMIT_NAMES, meterOf, METER_LIMITS, type LimitName, type Plans } from './plans.ts';
import { monthOf, type Clock } from './periods.ts';

const TABLE = 'billing_usage';
const COUNT_IN = `UPDATE ${TABLE} SET used = used + $4 WHERE workspace_id = $1 AND meter = $2 AND period = $3 AND (cap IS NULL OR used + $4 <= cap) RETURNING used`;

/**
 * Counts what each workspace uses and holds writes to its plan's limits. A meter's count is one row per workspace (and
 * month, for monthly meters) holding the plan's limit beside it, seeded by asking the plugin that owns the meter, then
 * raised and lowered by the writes themselves: checking and counting is one statement on that row, so concurrent writes
 * queue on it and exactly as many fit as the limit leaves room for. A daily recount corrects any drift.
 */
export class UsageMeters {
  private readonly countIn: (values: unknown[], trx: Db) => Promise<Array<{ used: string }>>;

  constructor(private readonly deps: { db: Db; storage: Database; hooks: UsageHooks; plans: Plans; clock: Clock }) {
    this.countIn = deps.storage.prepared('billing.count_in', COUNT_IN);
  }

  /** `usage.rise`: counts the write in, or refuses it whole with `plan_limit_exceeded`. */
  async rise({ trx, workspaceId, meter, amount }: UsageChange): Promise<void> {
    const spec = meterOf(meter);
    if (!spec) return;
    const period = this.periodOf(meter);
    for (let attempt = 0; ; attempt++) {
      if ((await this.countIn([workspaceId, meter, period, amount], trx)).length > 0) return;
      const current = await trx(TABLE).where({ workspace_id: workspaceId, meter, period }).first('used', 'cap');
      if (current || attempt > 0) {
        const plan = await this.planOf(trx, workspaceId);
        throw UsageErrors.plan_limit_exceeded({ meter, limit: Number(current?.cap ?? 0), used: Number(current?.used ?? 0), plan, adding: amount });
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

  /** The workspaces' counts take the limits of `plan`: what a change of plan does, in its transaction. */
  async capTo(trx: Db, workspaceIds: string[], plan: string): Promise<void> {
    if (workspaceIds.length === 0) return;
    for (const [meter, spec] of Object.entries(METER_LIMITS)) {
      await trx(TABLE).whereIn('workspace_id', workspaceIds).where({ meter }).update({ cap: this.deps.plans.limit(plan, spec.limit) });
    }
  }

  /** Every count takes its workspace's plan's limits as configured now (at start: the plans may have changed). */
  async capAll(): Promise<void> {
    await inTransaction(this.deps.db, async (trx) => {
      for (const [meter, spec] of Object.entries(METER_LIMITS)) {
        const caps = JSON.stringify(this.deps.plans.limitsOf(spec.limit));
        await trx.raw(
          `UPDATE ${TABLE} u SET cap = (?::jsonb ->> coalesce((SELECT a.plan FROM billing_accounts a WHERE a.workspace_id = u.workspace_id AND jsonb_exists(?::jsonb, a.plan)), ?))::bigint WHERE u.meter = ?`,
          [caps, caps, FREE, meter],
        );
      }
    });
  }

  /** What the workspace uses of each limit now (AI credits come from the ledger: `creditsSpent`). */
  async usage(workspaceId: string, creditsSpent: number): Promise<Record<LimitName, number>> {
    const used = { members: 0, records: 0, storage_bytes: 0, automation_runs_per_month: 0, ai_credits_per_month: creditsSpent } as Record<LimitName, number>;
    for (const [meter, spec] of Object.entries(METER_LIMITS)) used[spec.limit] = await this.used(workspaceId, meter);
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

  /** How much of `meter` the workspace uses now: its count, or (never counted yet) what the meter's owner counts. */
  async used(workspaceId: string, meter: UsageMeter): Promise<number> {
    const period = this.periodOf(meter);
    const row = await this.deps.db(TABLE).where({ workspace_id: workspaceId, meter, period }).first('used');
    return row ? Number(row.used) : this.measure(this.deps.db, workspaceId, meter);
  }

  private async seed(trx: Db, workspaceId: string, meter: UsageMeter, period: string): Promise<void> {
    const used = await this.measure(trx, workspaceId, meter);
    const cap = this.deps.plans.limit(await this.planOf(trx, workspaceId), meterOf(meter)!.limit);
    await trx(TABLE).insert({ workspace_id: workspaceId, meter, period, used, cap }).onConflict(['workspace_id', 'meter', 'period']).ignore();
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
