import { inTransaction, afterCommit, type Db } from '../../core/db.ts';
import type { Jobs } from '../../core/jobs.ts';

export const DROP_JOB = 'databases.drop-tables';
const QUEUE = 'databases_table_drops';

/**
 * Tables are dropped after the transaction that forgets them commits: a DROP locks the table, its
 * indexes, its TOAST table and its sequence (about 17 locks for a records table), and PostgreSQL's
 * lock table holds some 6,400 by default, so a workspace of a few hundred databases could not be
 * deleted in one transaction. The queue row and the job are written in that transaction: a
 * rollback keeps the table, a commit leaves a durable task that a crash cannot lose. Nothing reads
 * a queued table: the rows that named it are gone.
 */
export class TableDrops {
  /** Transactions that have enqueued the job already: one job drains the queue (a workspace's 1,000 databases need one). */
  private readonly enqueuedIn = new WeakSet<Db>();

  constructor(
    private readonly db: Db,
    private readonly jobs: Jobs,
  ) {}

  /** Queues `tables` to be dropped once `trx` commits. */
  async later(trx: Db, tables: string[]): Promise<void> {
    if (tables.length === 0) return;
    await trx(QUEUE).insert(tables.map((table_name) => ({ table_name }))).onConflict('table_name').ignore();
    if (this.enqueuedIn.has(trx)) return;
    this.enqueuedIn.add(trx);
    await this.jobs.send(DROP_JOB, {}, trx);
    afterCommit(trx, () => this.jobs.notifyWorker(DROP_JOB));
  }

  /** Drops the queued tables, oldest first, each in its own transaction; returns how many. */
  async dropQueued(): Promise<number> {
    let dropped = 0;
    // SKIP LOCKED: two workers (or processes) share the queue instead of waiting on each other.
    while (
      await inTransaction(this.db, async (trx) => {
        const next: { id: string; table_name: string } | undefined = await trx(QUEUE).first('id', 'table_name').orderBy('id').forUpdate().skipLocked();
        if (!next) return false;
        await trx.raw('DROP TABLE IF EXISTS ??', [next.table_name]);
        await trx(QUEUE).where({ id: next.id }).delete();
        return true;
      })
    ) dropped++;
    return dropped;
  }
}
