import { inTransaction, type Db } from '../../core/db.ts';
import { AppError, notFound } from '../../core/errors.ts';
import { countRows } from '../../core/db-count.ts';
import { raiseUsage, usageWatched, UsageErrors, type UsageHooks } from '../../core/usage.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { WriteOrigin } from '../records/public.ts';
import type { LocalCache } from '../../core/cache.ts';
import type { ActionRegistry, TriggerData } from './actions.ts';
import { AutomationErrors } from './errors.ts';
import { fill, readsCells, type CellText } from './placeholders.ts';
import { StepFailed } from './actions.ts';
import type { RunRate } from './rate-limit.ts';
import type { RunStatus, Run, Step } from './schemas.ts';

export const RUNS = 'automation_runs';
const COLUMNS = ['id', 'automation_id', 'workspace_id', 'status', 'trigger', 'steps', 'reason', 'created_at', 'finished_at'];
const OPEN: RunStatus[] = ['queued', 'running', 'waiting_for_approval'];

interface RunRow {
  id: string;
  automation_id: string;
  workspace_id: string;
  status: RunStatus;
  trigger: TriggerData;
  steps: Step[];
  reason: string | null;
  created_at: Date;
  finished_at: Date | null;
}

/** A run as the API shows it: the trigger's type, record and event; the values it carried stay inside. */
export function presentRun(row: RunRow): Run {
  return {
    id: row.id,
    automation_id: row.automation_id,
    status: row.status,
    trigger: { type: row.trigger.type, record_id: row.trigger.record_id, event_id: row.trigger.event_id, ...(row.trigger.scheduled_for ? { scheduled_for: row.trigger.scheduled_for } : {}) },
    steps: row.steps,
    reason: row.reason,
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at?.toISOString() ?? null,
  };
}

/** A new run: queued to be worked, or already `canceled` with the reason it was not started (loop guard, rate limit). */
export interface NewRun {
  automationId: string;
  workspaceId: string;
  /** The automation's database, when the caller knows it: the job then finds the automation in its cache. */
  databaseId?: string;
  trigger: TriggerData;
  canceled?: string;
}

/** The chain a run's writes belong to: its depth, and the automations already run for the record. */
export interface RunChain {
  depth: number;
  chain: string[];
  recordId: string | null;
}

/** Thrown by an action that hands the run to someone else (an approval): the run waits, state in its row. */
export class PauseRun extends Error {
  constructor(readonly output: unknown = null) {
    super('The run waits.');
  }
}

/**
 * A run's job. A run queued by a trigger names its automation, so the job finds it in this process's cache without a
 * query, and is `fresh`: it counts against the workspace's rate as it starts (a resumed or retried run does not).
 */
export interface RunJob {
  runId: string;
  automationId?: string;
  databaseId?: string;
  fresh?: boolean;
}

/** What a run needs of its automation; kept per process, dropped by the automations table's signal. */
export interface RunnableAutomation {
  id: string;
  workspace_id: string;
  database_id: string;
  name: string;
  actions: Array<{ type: string } & Record<string, unknown>>;
  created_by: string | null;
}

interface Deps {
  db: Db;
  actions: ActionRegistry;
  send: (job: RunJob, trx?: Db) => Promise<void>;
  cache: LocalCache<RunnableAutomation | null>;
  rate: RunRate;
  failed: (automation: { id: string; workspace_id: string; database_id: string; name: string; created_by: string | null }) => Promise<void>;
  pauseAfterFailures: number;
  retryLimit: number;
  /** The text form of a database's cells, for placeholders. */
  cells: (databaseId: string) => Promise<CellText>;
  usage: UsageHooks;
}

const now = () => new Date().toISOString();
const step = (action: string): Step => ({ action, status: 'running', output: null, error: null, started_at: now(), finished_at: null });

/** Runs: queued by triggers, worked by a durable job step by step, each step stored as it starts and as it ends. */
export class RunService {
  /**
   * Writes made by a run carry an origin object; its chain is kept against that very object, so the records write
   * path hands it back to the trigger without the origin that history stores growing fields of ours.
   */
  private readonly chains = new WeakMap<WriteOrigin, RunChain>();

  constructor(private readonly deps: Deps) {}

  /** The chain of the run that made a write with `origin`; undefined for a write no run of this kernel made. */
  chainOf(origin: WriteOrigin): RunChain | undefined {
    return this.chains.get(origin);
  }

  /**
   * Inserts runs and queues the open ones in `trx`: a job exists only if the write that triggered it commits. Each open
   * run counts toward the plan's monthly runs; runs the plan has no room for are stored canceled with the reason, or,
   * with `refuseOverLimit` (a person or a caller waiting for the answer), refused with `plan_limit_exceeded`.
   */
  async start(trx: Db, runs: NewRun[], opts: { refuseOverLimit?: boolean } = {}): Promise<string[]> {
    if (runs.length === 0) return [];
    runs = await this.counted(trx, runs, opts.refuseOverLimit ?? false);
    const rows: Array<{ id: string; status: RunStatus; automation_id: string }> = await trx(RUNS)
      .insert(
        runs.map((r) => ({
          automation_id: r.automationId,
          workspace_id: r.workspaceId,
          trigger: JSON.stringify(r.trigger),
          status: r.canceled ? 'canceled' : 'queued',
          reason: r.canceled ?? null,
          finished_at: r.canceled ? trx.fn.now() : null,
        })),
      )
      .returning(['id', 'status', 'automation_id']);
    for (const row of rows) if (row.status === 'queued') await this.deps.send({ runId: row.id, automationId: row.automation_id, databaseId: runs.find((r) => r.automationId === row.automation_id)?.databaseId, fresh: true }, trx);
    return rows.map((r) => r.id);
  }

  /** Runs started in the workspace since `since` (canceled ones did not run): what a plan's monthly limit counts. */
  async startedSince(db: Db, workspaceId: string, since: Date): Promise<number> {
    return countRows(db(RUNS).where({ workspace_id: workspaceId }).where('created_at', '>=', since).whereNot({ status: 'canceled' }));
  }

  private async counted(trx: Db, runs: NewRun[], refuse: boolean): Promise<NewRun[]> {
    if (!usageWatched(this.deps.usage)) return runs;
    const full = new Map<string, string>();
    for (const workspaceId of new Set(runs.map((r) => r.workspaceId))) {
      try {
        await raiseUsage(this.deps.usage, trx, workspaceId, 'automation_runs', runs.filter((r) => r.workspaceId === workspaceId && !r.canceled).length);
      } catch (err) {
        if (refuse || !(err instanceof AppError && err.code === UsageErrors.plan_limit_exceeded.code)) throw err;
        full.set(workspaceId, `This workspace's plan has no automation runs left this month (${String(err.extensions.limit)}).`);
      }
    }
    return runs.map((r) => (!r.canceled && full.has(r.workspaceId) ? { ...r, canceled: full.get(r.workspaceId) } : r));
  }

  async list(workspaceId: string, automationId: string, page: { limit?: number; cursor?: string }): Promise<Page<Run>> {
    const q = this.deps.db(RUNS).where({ workspace_id: workspaceId, automation_id: automationId }).select(COLUMNS);
    const rows = await keysetPage<RunRow>(this.deps.db, q, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'desc' }, page);
    return { data: rows.data.map(presentRun), next_cursor: rows.next_cursor };
  }

  async get(workspaceId: string, id: string): Promise<Run> {
    return presentRun(await this.row(this.deps.db, workspaceId, id));
  }

  /** Ends an open run as `canceled`; a step already under way finishes, no later one starts. */
  async cancel(workspaceId: string, id: string): Promise<Run> {
    return inTransaction(this.deps.db, async (trx) => {
      const row = await this.row(trx, workspaceId, id, true);
      if (!OPEN.includes(row.status)) throw AutomationErrors.run_finished(row.status);
      const [updated] = await trx(RUNS).where({ id }).update({ status: 'canceled', reason: 'Canceled by a person.', finished_at: trx.fn.now() }).returning(COLUMNS);
      return presentRun(updated);
    });
  }

  /** Where a run's workspace is (for the route's access check), or undefined. */
  async workspaceOf(id: string): Promise<{ workspace_id: string; automation_id: string } | undefined> {
    return this.deps.db(RUNS).where({ id }).first('workspace_id', 'automation_id');
  }

  /** Resumes a run that waits (an approval granted): its waiting step succeeds with `output` and the next ones run. */
  async resume(trx: Db, runId: string, output: unknown = null): Promise<boolean> {
    const row = await trx(RUNS).where({ id: runId, status: 'waiting_for_approval' }).forUpdate().first(COLUMNS);
    if (!row) return false;
    const steps = closeLast(row.steps, 'succeeded', output, null);
    await trx(RUNS).where({ id: runId }).update({ status: 'queued', steps: JSON.stringify(steps) });
    await this.deps.send({ runId }, trx);
    return true;
  }

  /** Ends a run that waits (an approval rejected or expired) as `failed`, with `reason` on its waiting step. */
  async end(trx: Db, runId: string, reason: string): Promise<boolean> {
    const row = await trx(RUNS).where({ id: runId, status: 'waiting_for_approval' }).forUpdate().first(COLUMNS);
    if (!row) return false;
    await trx(RUNS).where({ id: runId }).update({ status: 'failed', reason, steps: JSON.stringify(closeLast(row.steps, 'failed', null, reason)), finished_at: trx.fn.now() });
    return true;
  }

  /**
   * The job: works the run from its first unfinished step. Safe to call again for the same run (a retry, a restart).
   * Round trips of a one-step run: the claim (which stores the first step as started), the action, the end (which
   * stores the last step's end and resets the failure count). The rate is counted beside the claim, not after it.
   */
  async work(job: RunJob, retryCount: number, actingAs: (userId: string) => UserPrincipal): Promise<void> {
    const automation = await this.automation(job);
    const first = automation?.actions[0] ? step(automation.actions[0].type) : null;
    const counted = job.fresh && retryCount === 0 && automation ? this.deps.rate.take(automation.workspace_id) : true;
    const [allowed, run] = await Promise.all([counted, this.claim(job.runId, first)]);
    if (!run) return;
    if (!allowed) {
      await this.deps.db(RUNS).where({ id: run.id, status: 'running' }).update({ status: 'canceled', steps: '[]', reason: 'Rate limit: too many runs in this workspace this minute.', finished_at: this.deps.db.fn.now() });
      return;
    }
    if (!automation?.created_by) return this.finish({ ...run, steps: run.was_steps }, 'failed', automation ?? undefined, 'The automation or its creator is gone.');
    const steps = [...run.was_steps];
    const last = steps.at(-1);
    const actions = automation.actions;
    // A step that was under way when the process stopped: done again only if its action says that is safe.
    if (last?.status === 'running') {
      const def = this.deps.actions.get(actions[steps.length - 1]?.type ?? '');
      if (def?.retrySafe) steps.pop();
      else {
        steps[steps.length - 1] = { ...last, status: 'failed', error: 'Interrupted, and this action is not safe to do twice.', finished_at: now() };
        return this.finish({ ...run, steps }, 'failed', automation);
      }
    }
    const origin: WriteOrigin = { type: 'automation', id: automation.id };
    this.chains.set(origin, { depth: run.trigger.depth + 1, chain: [...run.trigger.chain, automation.id], recordId: run.trigger.record_id });
    // The fields are read once a run, and only by a run whose placeholders name a cell.
    let cells: Promise<CellText> | undefined;
    for (let i = steps.length; i < actions.length; i++) {
      const { type, ...config } = actions[i];
      const def = this.deps.actions.get(type);
      // A fresh run's first step was stored by the claim; each later one is stored as it starts (with the end of the
      // one before): a cancel in between stops the run before its next step.
      const current: Step = i === 0 && run.was_steps.length === 0 && first ? first : step(type);
      steps.push(current);
      if (current !== first) {
        const stillOurs = await this.deps.db(RUNS).where({ id: run.id, status: 'running' }).update({ steps: JSON.stringify(steps) });
        if (!stillOurs) return;
      }
      try {
        if (!def) throw new StepFailed(`No action "${type}" is registered.`);
        const texts = readsCells(config) ? await (cells ??= this.deps.cells(automation.database_id)) : undefined;
        current.output = (await def.run({ workspaceId: automation.workspace_id, databaseId: automation.database_id, automationId: automation.id, runId: run.id, config: fill(config, run.trigger, texts) as Record<string, unknown>, trigger: run.trigger, actor: actingAs(automation.created_by), origin })) ?? null;
        Object.assign(current, { status: 'succeeded', finished_at: now() });
      } catch (err) {
        if (err instanceof PauseRun) {
          current.output = err.output;
          await this.deps.db(RUNS).where({ id: run.id, status: 'running' }).update({ status: 'waiting_for_approval', steps: JSON.stringify(steps) });
          return;
        }
        const message = err instanceof Error ? err.message : String(err);
        // Only an action that says so is tried again (the job's retry); a write that failed is never redone.
        if (def?.retrySafe && retryCount < this.deps.retryLimit) {
          Object.assign(current, { error: message });
          await this.deps.db(RUNS).where({ id: run.id }).update({ steps: JSON.stringify(steps) });
          throw err;
        }
        Object.assign(current, { status: 'failed', error: message, finished_at: now() });
        return this.finish({ ...run, steps }, 'failed', automation);
      }
    }
    return this.finish({ ...run, steps }, 'succeeded', automation);
  }

  /** The automation a job runs: from this process's cache when the job names its database, else read. */
  private async automation(job: RunJob): Promise<RunnableAutomation | null> {
    const load = async (): Promise<RunnableAutomation | null> => {
      const q = job.automationId ? this.deps.db('automations').where({ id: job.automationId }) : this.deps.db('automations').whereIn('id', this.deps.db(RUNS).where({ id: job.runId }).select('automation_id'));
      return (await q.first('id', 'workspace_id', 'database_id', 'name', 'actions', 'created_by')) ?? null;
    };
    return job.automationId && job.databaseId ? this.deps.cache.get(job.databaseId, job.automationId, load) : load();
  }

  /**
   * Takes an open run (`queued`, or `running` left by a stopped process) and, for a run with no step yet, stores
   * `first` as started in the same statement. Answers the run with its steps as they were before.
   */
  private async claim(runId: string, first: Step | null): Promise<(RunRow & { was_steps: Step[] }) | undefined> {
    const db = this.deps.db;
    const { rows } = await db.raw<{ rows: Array<RunRow & { was_steps: Step[] }> }>(
      `WITH was AS (SELECT id, steps FROM ${RUNS} WHERE id = ? AND status IN ('queued', 'running') FOR UPDATE)
       UPDATE ${RUNS} r SET status = 'running', steps = CASE WHEN jsonb_array_length(was.steps) = 0 AND ?::jsonb IS NOT NULL THEN ?::jsonb ELSE was.steps END
       FROM was WHERE r.id = was.id
       RETURNING r.id, r.automation_id, r.workspace_id, r.status, r.trigger, r.steps, r.reason, r.created_at, r.finished_at, was.steps AS was_steps`,
      [runId, first && JSON.stringify([first]), first && JSON.stringify([first])],
    );
    return rows[0];
  }

  /** Deletes runs older than `days`; answers how many. */
  async purge(days: number): Promise<number> {
    return this.deps.db(RUNS).where('created_at', '<', this.deps.db.raw(`now() - make_interval(days => ?)`, [days])).del();
  }

  private async finish(run: RunRow, status: 'succeeded' | 'failed', automation?: { id: string; workspace_id: string; database_id: string; name: string; created_by: string | null }, reason?: string): Promise<void> {
    const db = this.deps.db;
    if (status === 'succeeded' && automation) {
      // One statement: the run's end and the reset of its automation's failure count (a write only when there is one).
      await db.raw(
        `WITH ended AS (UPDATE ${RUNS} SET status = ?, steps = ?::jsonb, reason = ?, finished_at = now() WHERE id = ? AND status = 'running' RETURNING automation_id)
         UPDATE automations SET consecutive_failures = 0 WHERE id IN (SELECT automation_id FROM ended) AND consecutive_failures > 0`,
        [status, JSON.stringify(run.steps), reason ?? null, run.id],
      );
      return;
    }
    await db(RUNS).where({ id: run.id, status: 'running' }).update({ status, steps: JSON.stringify(run.steps), reason: reason ?? null, finished_at: db.fn.now() });
    if (!automation) return;
    const [row] = await db('automations').where({ id: automation.id }).increment('consecutive_failures', 1).returning(['consecutive_failures', 'enabled']);
    if (row?.enabled && row.consecutive_failures >= this.deps.pauseAfterFailures) {
      const paused = await db('automations').where({ id: automation.id, enabled: true }).update({ enabled: false, updated_at: db.fn.now() });
      if (paused) await this.deps.failed(automation);
    }
  }

  private async row(db: Db, workspaceId: string, id: string, lock = false): Promise<RunRow> {
    const q = db(RUNS).where({ workspace_id: workspaceId, id }).first(COLUMNS);
    const row = await (lock ? q.forUpdate() : q);
    if (!row) throw notFound('No such run in this workspace.');
    return row;
  }
}

function closeLast(steps: Step[], status: 'succeeded' | 'failed', output: unknown, error: string | null): Step[] {
  const out = [...steps];
  const last = out.at(-1);
  if (last) out[out.length - 1] = { ...last, status, output: output ?? last.output, error, finished_at: now() };
  return out;
}
