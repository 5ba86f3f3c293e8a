import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import { StartupError } from './errors.ts';
import { afterCommit, type Database, type Db } from './db.ts';

export interface JobDefinition<T = any> {
  /** Queue name; namespaced by the registering plugin as `<plugin>.<name>`. */
  name: string;
  handler: (data: T, job: { id: string; retryCount: number }) => Promise<void>;
  /** Cron expression (UTC) to run the job on a schedule. */
  schedule?: string;
  retryLimit?: number;
  retryDelaySeconds?: number;
  expireInSeconds?: number;
  /** How many jobs of this queue one process works on at once. */
  concurrency?: number;
}

export interface JobsOptions {
  enabled: boolean;
  pollingIntervalSeconds: number;
  schema: string;
  /** Exposed for tests that need fast expiry of crashed work. */
  maintenanceIntervalSeconds?: number;
}

/**
 * pg-boss behind a small facade: plugins declare jobs at register time, workers start at
 * boot, and `send` may join the caller's transaction so a job exists only if the write does.
 */
export class Jobs {
  readonly boss: PgBoss;
  private readonly defs = new Map<string, JobDefinition & { owner: string }>();
  private started = false;
  private readonly workerIds = new Map<string, string>();

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
    private readonly opts: JobsOptions,
  ) {
    const db = { executeSql: (text: string, values?: unknown[]) => database.executeSql(text, values) };
    this.boss = new PgBoss({
      db,
      schema: opts.schema,
      supervise: opts.enabled,
      schedule: opts.enabled,
      migrate: true,
      ...(opts.maintenanceIntervalSeconds ? { maintenanceIntervalSeconds: opts.maintenanceIntervalSeconds, monitorStateIntervalSeconds: opts.maintenanceIntervalSeconds } : {}),
    } as never);
    this.boss.on('error', (err: Error) => this.logger.error({ err }, 'job queue error'));
  }

  define(owner: string, def: JobDefinition): void {
    const name = def.name.startsWith(`${owner}.`) ? def.name : `${owner}.${def.name}`;
    if (this.defs.has(name)) throw new StartupError(`Job "${name}" is defined twice.`, 'duplicate_job', [owner]);
    this.defs.set(name, { ...def, name, owner });
  }

  has(name: string): boolean {
    return this.defs.has(name);
  }

  /** Creates the pg-boss schema and the queues (idempotent, but not safe to race: see Kernel's setup lock). */
  async prepare(isActive: (owner: string) => boolean = () => true): Promise<void> {
    await this.boss.start();
    this.started = true;
    // One statement lists the queues; creating one that exists would cost a round trip each, at every start.
    const existing = new Set((await this.boss.getQueues()).map((q) => q.name));
    for (const def of this.defs.values()) {
      if (!isActive(def.owner) || existing.has(def.name)) continue;
      await this.boss.createQueue(def.name, {
        name: def.name,
        retryLimit: def.retryLimit ?? 5,
        retryDelay: def.retryDelaySeconds ?? 5,
        retryBackoff: true,
        expireInSeconds: def.expireInSeconds ?? 15 * 60,
      });
    }
  }

  /** Starts workers and schedules, when jobs are enabled in this process. */
  async startWorkers(isActive: (owner: string) => boolean = () => true): Promise<void> {
    if (!this.opts.enabled) return;
    const active = [...this.defs.values()].filter((def) => isActive(def.owner));
    // One round trip each, independent of one another: side by side on the pool, not one after another.
    await Promise.all(active.flatMap((def) => (def.schedule ? [this.boss.schedule(def.name, def.schedule)] : [])));
    for (const def of active) {
      const workerId = await this.boss.work(
        def.name,
        // Metadata carries retryCount, which handlers are promised.
        { pollingIntervalSeconds: this.opts.pollingIntervalSeconds, batchSize: def.concurrency ?? 1, includeMetadata: true },
        // A batch is `concurrency` jobs run side by side; each fails alone, so one failure
        // neither re-runs its finished neighbours nor spends a retry of those never tried.
        async (jobs) => {
          // pg-boss waits a polling interval after every batch: a full one means more may be queued, so the worker
          // fetches again at once instead (ten exports queued together took 14 s, one per 2 s poll).
          if (jobs.length >= (def.concurrency ?? 1)) this.notifyWorker(def.name);
          await Promise.all(
            jobs.map(async (job) => {
              try {
                await def.handler(job.data, { id: job.id, retryCount: (job as { retryCount?: number }).retryCount ?? 0 });
              } catch (err) {
                this.logger.warn({ err, job: def.name, jobId: job.id, plugin: def.owner }, 'job failed; it will be retried');
                await this.boss.fail(def.name, job.id, err as object);
              }
            }),
          );
        },
      );
      this.workerIds.set(def.name, workerId);
    }
  }

  /**
   * Enqueues a job; pass `trx` to make it part of the caller's transaction. This process's worker is woken once the
   * job is committed, so it starts now rather than at the next poll (a second on average: a fifth of a 100,000-row
   * import's budget).
   */
  async send<T extends object>(name: string, data: T, trx?: Db): Promise<string | null> {
    const options = trx ? { db: this.adapter(trx) } : {};
    const id = await this.boss.send(name, data, options as never);
    afterCommit(trx, () => this.notifyWorker(name));
    return id;
  }

  async insert(jobs: Array<{ name: string; data: object }>, trx?: Db): Promise<void> {
    if (jobs.length === 0) return;
    await this.boss.insert(jobs, (trx ? { db: this.adapter(trx) } : {}) as never);
  }

  /** Wakes the workers of `name` now instead of at their next poll. */
  notifyWorker(name: string): void {
    const id = this.workerIds.get(name);
    if (this.started && id) this.boss.notifyWorker(id);
  }

  adapter(trx: Db) {
    return { executeSql: (text: string, values?: unknown[]) => this.database.executeSql(text, values, trx) };
  }

  /** Graceful: lets running jobs finish (up to `timeoutMs`). */
  async stop(graceful = true, timeoutMs = 10000): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await this.boss.stop({ graceful, close: false, wait: true, timeout: timeoutMs } as never);
  }
}
