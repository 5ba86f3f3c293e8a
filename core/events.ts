import type { Logger } from 'pino';
import { inTransaction, afterCommit, type Database, type Db, type NativeStatement } from './db.ts';
import type { Jobs } from './jobs.ts';

export interface DomainEvent<T = unknown> {
  id: number;
  name: string;
  payload: T;
  workspace_id: string | null;
  actor_id: string | null;
  occurred_at: string;
}

export interface EmitInput<T = unknown> {
  name: string;
  payload: T;
  workspaceId?: string | null;
  actorId?: string | null;
}

export interface Subscriber {
  /** Unique within the plugin; the queue is `<plugin>.events.<name>`. */
  name: string;
  /** Event names; `record.*` matches a prefix, `*` everything. */
  events: string[];
  handler: (event: DomainEvent) => Promise<void>;
  retryLimit?: number;
  retryDelaySeconds?: number;
  /** A delivery still running after this long is presumed crashed and retried. */
  expireInSeconds?: number;
}

/**
 * A plugin's share of the fan-out itself: `handler` runs inside the transaction that marks a batch dispatched, with
 * the batch's events its `events` match. What it writes there commits with the fan-out or not at all, and a failing
 * tap leaves the whole batch undispatched for the next pass: a tap must be idempotent over repeated batches only in
 * that it may see the same events again after a failure (never after a commit).
 */
export interface FanOutTap {
  /** Unique within the plugin; names the tap in logs. */
  name: string;
  /** Event names; `record.*` matches a prefix, `*` everything. */
  events: string[];
  handler: (trx: Db, events: DomainEvent[]) => Promise<void>;
  /**
   * Whether the tap wants events now (asked as events are recorded and fanned out): a tap whose own listeners may be
   * absent (hooks nobody tapped) says so, and events nobody else hears skip the fan-out pass. Always, when left out.
   */
  active?: () => boolean;
}

/** Events a fan-out pass takes (at least one outbox row, however many events it holds). */
const BATCH = 500;
export const EVENTS_TABLE = 'kernel_events';
/** Outbox rows per INSERT: six parameters each, far below PostgreSQL's 65,535. */
const INSERT_CHUNK = 1000;
/**
 * Events one outbox row holds at most: consecutive events of one name, workspace and actor (a bulk write's, an
 * import batch's) share a row, its payload their array; the ids step by this much, so a row's events take the ids
 * from the row's own up (migrations/20261229000000_events_packed.ts).
 */
const EVENTS_PER_ROW = 65_536;
/** Events per DELETE of the retention job: short statements, no long lock on the outbox. */
const PURGE_CHUNK = 10_000;

/**
 * One statement for `count` outbox rows, each payload its own `json` parameter: nothing for the driver to escape and
 * nothing for PostgreSQL to build but the rows (a JSON array unpacked in SQL cost more than the insert). The text
 * depends only on the count, so the usual counts are prepared by `Database.repeated`.
 */
function insertEventsSql(count: number): string {
  const rows = Array.from({ length: count }, (_, i) => {
    const p = i * 6;
    return `($${p + 1}, $${p + 2}::json, $${p + 3}::uuid, $${p + 4}::uuid, CASE WHEN $${p + 5}::boolean THEN NULL ELSE now() END, $${p + 6}::integer)`;
  });
  return `INSERT INTO ${EVENTS_TABLE} (name, payload, workspace_id, actor_id, dispatched_at, count) VALUES ${rows.join(', ')}`;
}

/** The columns of an outbox row (`OutboxRow`), as `eventsOfRow` takes them. */
export const OUTBOX_COLUMNS = ['id', 'name', 'payload', 'workspace_id', 'actor_id', 'occurred_at', 'count'];

/** An outbox row as stored: one event, or (`count` set) the array of the payloads of that many. */
interface OutboxRow {
  id: number | string;
  name: string;
  payload: unknown;
  workspace_id: string | null;
  actor_id: string | null;
  occurred_at: string;
  count: number | null;
}

/** The events of an outbox row, each with its own id (a packed row's from the row's own up). */
export function eventsOfRow(row: OutboxRow): DomainEvent[] {
  const { count, ...event } = row;
  const id = Number(row.id);
  if (count === null || count === undefined) return [{ ...event, id }];
  return (row.payload as unknown[]).map((payload, i) => ({ ...event, id: id + i, payload }));
}

/** Consecutive events of one name, workspace and actor, as one outbox row holds them. */
interface Run {
  name: string;
  workspaceId: string | null;
  actorId: string | null;
  payloads: string[];
}

function matches(patterns: string[], name: string): boolean {
  return patterns.some((p) => p === '*' || p === name || (p.endsWith('.*') && name.startsWith(p.slice(0, -1))));
}

/**
 * Domain events: recorded in `kernel_events` inside the writer's transaction (an outbox),
 * then fanned out after commit to one pg-boss queue per subscriber, in one transaction
 * that also marks them dispatched (and runs the plugins' fan-out taps). A crash before fan-out leaves them undispatched for
 * the next dispatcher (any instance); a crash during delivery leaves the job to pg-boss,
 * which retries it. Delivery is at least once; subscribers must be idempotent.
 */
export class EventBus {
  private readonly subscribers: Array<Subscriber & { owner: string; queue: string }> = [];
  private readonly taps: Array<FanOutTap & { owner: string }> = [];
  private running = false;
  private draining: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;

  private readonly db: Db;

  constructor(
    private readonly database: Database,
    private readonly jobs: Jobs,
    private readonly logger: Logger,
    private readonly pollMs: number,
  ) {
    this.db = database.knex;
  }

  subscribe(owner: string, sub: Subscriber): void {
    const queue = `${owner}.events.${sub.name}`;
    this.subscribers.push({ ...sub, owner, queue });
    this.jobs.define(owner, {
      name: queue,
      retryLimit: sub.retryLimit ?? 25,
      retryDelaySeconds: sub.retryDelaySeconds ?? 5,
      expireInSeconds: sub.expireInSeconds ?? 15 * 60,
      handler: async (data: { event: DomainEvent }) => sub.handler(data.event),
    });
  }

  /** Adds `tap` to every fan-out transaction (register only: events emitted before it are not offered to it). */
  tapFanOut(owner: string, tap: FanOutTap): void {
    this.taps.push({ ...tap, owner });
  }

  /** Records events in `trx`; they are delivered only if it commits. */
  async emit(trx: Db, events: EmitInput | EmitInput[]): Promise<void> {
    for (const statement of this.statements(trx, events)) await this.database.repeated(statement, 'events', trx);
  }

  /**
   * The statements `emit` runs, for a writer that runs them itself in `trx` with writes of its own (see
   * `combineWrites`); as with `emit`, the events are delivered only if `trx` commits.
   */
  statements(trx: Db, events: EmitInput | EmitInput[]): NativeStatement[] {
    const list = Array.isArray(events) ? events : [events];
    if (list.length === 0) return [];
    // An event no subscriber listens to is recorded as already dispatched: no fan-out pass after commit.
    const taps = this.activeTaps();
    // Asked once per name: an import tells 100,000 events of one name.
    const byName = new Map<string, boolean>();
    for (const e of list) {
      if (!byName.has(e.name)) byName.set(e.name, this.subscribers.some((sub) => matches(sub.events, e.name)) || taps.some((tap) => matches(tap.events, e.name)));
    }
    const runs: Run[] = [];
    for (const e of list) {
      const workspaceId = e.workspaceId ?? null;
      const actorId = e.actorId ?? null;
      const last = runs[runs.length - 1];
      const payload = JSON.stringify(e.payload ?? null);
      if (last && last.name === e.name && last.workspaceId === workspaceId && last.actorId === actorId && last.payloads.length < EVENTS_PER_ROW) last.payloads.push(payload);
      else runs.push({ name: e.name, workspaceId, actorId, payloads: [payload] });
    }
    const statements: NativeStatement[] = [];
    for (let start = 0; start < runs.length; start += INSERT_CHUNK) {
      const chunk = runs.slice(start, start + INSERT_CHUNK);
      const bindings = chunk.flatMap((run) => {
        const one = run.payloads.length === 1;
        return [run.name, one ? run.payloads[0] : `[${run.payloads.join(',')}]`, run.workspaceId, run.actorId, byName.get(run.name)!, one ? null : run.payloads.length];
      });
      statements.push({ sql: insertEventsSql(chunk.length), bindings });
    }
    if ([...byName.values()].some(Boolean)) afterCommit(trx, () => this.wake());
    return statements;
  }

  start(): void {
    this.running = true;
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    await this.draining;
  }

  /** Schedules a dispatch pass; concurrent calls coalesce. */
  wake(): void {
    if (!this.running) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain().finally(() => {
      this.draining = null;
      if (this.again && this.running) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.running && (await this.dispatchBatch()) >= BATCH);
    } catch (err) {
      this.logger.error({ err }, 'event dispatch failed; will retry');
    }
  }

  /**
   * Deletes dispatched events that occurred more than `days` ago, oldest first; returns how many.
   * Undispatched events stay whatever their age: they are still owed to subscribers.
   */
  async purgeDispatched(days: number): Promise<number> {
    const cutoff = this.db.raw('now() - make_interval(days => ?)', [days]);
    // Ids grow with time, so the first event young enough to keep bounds the range; finding it in
    // id order walks only the rows about to go (the outbox has no index on its timestamps).
    const kept: { id: string } | undefined = await this.db(EVENTS_TABLE).first('id').where('occurred_at', '>=', cutoff).orderBy('id');
    let purged = 0;
    for (;;) {
      const doomed = this.db(EVENTS_TABLE)
        .select('id')
        .whereNotNull('dispatched_at')
        .where('occurred_at', '<', cutoff)
        .modify((q) => void (kept && q.where('id', '<', kept.id)))
        .orderBy('id')
        .limit(PURGE_CHUNK);
      const deleted = await this.db(EVENTS_TABLE).whereIn('id', doomed).del();
      purged += deleted;
      if (deleted < PURGE_CHUNK) return purged;
    }
  }

  private activeTaps(): FanOutTap[] {
    return this.taps.filter((tap) => !tap.active || tap.active());
  }

  /**
   * Waits until every event recorded so far in this database has been fanned out (for tests and for readers that must
   * see what the fan-out writes): drains what is undispatched, after any pass already running.
   */
  async settle(): Promise<void> {
    for (;;) {
      if (this.draining) await this.draining;
      if ((await this.dispatchBatch()) === 0 && !this.draining) return;
    }
  }

  /** Fans out one batch of undispatched events (whole outbox rows, about BATCH events); returns how many it took. */
  async dispatchBatch(): Promise<number> {
    const touched = new Set<string>();
    const count = await inTransaction(this.db, async (trx) => {
      // The rows first, then the payloads of those taken: a packed row holds up to EVENTS_PER_ROW events. Rows locked but
      // not taken stay undispatched, for the next pass once this one commits.
      const pending: Array<{ id: number | string; count: number | null }> = await trx(EVENTS_TABLE)
        .select('id', 'count')
        .whereNull('dispatched_at')
        .orderBy('id')
        .limit(BATCH)
        .forUpdate()
        .skipLocked();
      const taken: Array<number | string> = [];
      let events = 0;
      for (const row of pending) {
        if (events >= BATCH) break;
        taken.push(row.id);
        events += row.count ?? 1;
      }
      if (taken.length === 0) return 0;
      const stored: OutboxRow[] = await trx(EVENTS_TABLE).select(OUTBOX_COLUMNS).whereIn('id', taken).orderBy('id');
      const rows = stored.flatMap(eventsOfRow);
      const jobs: Array<{ name: string; data: object }> = [];
      for (const row of rows) {
        for (const sub of this.subscribers) {
          if (!matches(sub.events, row.name)) continue;
          jobs.push({ name: sub.queue, data: { event: row } });
          touched.add(sub.queue);
        }
      }
      await this.jobs.insert(jobs, trx);
      for (const tap of this.activeTaps()) {
        const heard = rows.filter((row) => matches(tap.events, row.name));
        if (heard.length > 0) await tap.handler(trx, heard);
      }
      await trx(EVENTS_TABLE).whereIn('id', taken).update({ dispatched_at: trx.fn.now() });
      return rows.length;
    });
    for (const q of touched) this.jobs.notifyWorker(q);
    return count;
  }
}
