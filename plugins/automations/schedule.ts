import parser from 'cron-parser';
import { inTransaction, type Db } from '../../core/db.ts';
import type { ErrorDetail } from '../../core/errors.ts';
import type { TriggerData } from './actions.ts';
import type { RunService } from './runs.service.ts';
import type { Trigger } from './schemas.ts';
import type { TriggerListener } from './triggers.ts';

type ScheduleTrigger = Extract<Trigger, { type: 'schedule' }>;

function knownTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * A schedule trigger as it is saved: five cron fields that cron-parser accepts, an IANA time zone, and no conditions
 * (a scheduled run has no record to test them on).
 */
export function checkSchedule(trigger: ScheduleTrigger, conditions: unknown, errors: ErrorDetail[], conditionsPointer: string): void {
  if (conditions !== null && conditions !== undefined) errors.push({ pointer: conditionsPointer, detail: 'A schedule trigger has no record to test conditions on: remove the conditions.' });
  const zoneOk = knownTimeZone(trigger.timezone);
  if (!zoneOk) errors.push({ pointer: '/trigger/timezone', detail: `"${trigger.timezone}" is not an IANA time zone (e.g. "Europe/Paris", "UTC").` });
  if (trigger.cron.trim().split(/\s+/).length !== 5) {
    errors.push({ pointer: '/trigger/cron', detail: 'A cron expression has five fields: minute hour day-of-month month day-of-week.' });
    return;
  }
  try {
    parser.parseExpression(trigger.cron, zoneOk ? { tz: trigger.timezone } : {});
  } catch (err) {
    errors.push({ pointer: '/trigger/cron', detail: `Not a cron expression: ${(err as Error).message}.` });
  }
}

/** The latest time at or before `now` the cron fires, in its time zone. */
export function lastFire(trigger: ScheduleTrigger, now: Date): Date {
  // `prev` is strictly before its start: a millisecond later lets a tick that lands exactly on the minute see it.
  return parser.parseExpression(trigger.cron, { tz: trigger.timezone, currentDate: new Date(now.getTime() + 1) }).prev().toDate();
}

interface Deps {
  db: Db;
  runs: () => RunService;
  triggers: () => TriggerListener;
}

interface Scheduled {
  id: string;
  workspace_id: string;
  trigger: ScheduleTrigger;
  updated_at: Date;
  last_scheduled_for: Date | null;
}

/**
 * Starts the runs of schedule automations. Each tick (a pg-boss cron job, every minute) looks at the latest fire time
 * of each enabled one; a time after both its last scheduled run and its last change is claimed by a conditional
 * UPDATE of `last_scheduled_for`, in the transaction that starts the run: however many processes tick, one run per
 * fire time. Fire times missed while no process ticked are caught up as one run, for the latest of them.
 */
export class Scheduler {
  constructor(private readonly deps: Deps) {}

  /** Answers how many runs were started. */
  async tick(now: Date): Promise<number> {
    const due: Array<{ a: Scheduled; fire: Date }> = [];
    const rows: Scheduled[] = await this.deps.db('automations').where({ enabled: true, trigger_type: 'schedule' }).select('id', 'workspace_id', 'trigger', 'updated_at', 'last_scheduled_for');
    for (const a of rows) {
      const fire = lastFire(a.trigger, now);
      if (fire > a.updated_at && (!a.last_scheduled_for || fire > a.last_scheduled_for)) due.push({ a, fire });
    }
    let started = 0;
    for (const { a, fire } of due) {
      started += await inTransaction(this.deps.db, async (trx) => {
        const claimed = await trx('automations')
          .where({ id: a.id, enabled: true, trigger_type: 'schedule' })
          .andWhere((q) => q.whereNull('last_scheduled_for').orWhere('last_scheduled_for', '<', fire))
          .update({ last_scheduled_for: fire });
        if (!claimed) return 0;
        const trigger: TriggerData = { type: 'schedule', record_id: null, event_id: null, before: null, after: null, scheduled_for: fire.toISOString(), depth: 0, chain: [] };
        await this.deps.runs().start(trx, [{ automationId: a.id, workspaceId: a.workspace_id, trigger, canceled: this.deps.triggers().refusal(a, trigger) }]);
        return 1;
      });
    }
    return started;
  }
}
