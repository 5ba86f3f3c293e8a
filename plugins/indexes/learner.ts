import type { Logger } from 'pino';
import type { Db } from '../../core/db.ts';
import type { QueryRan } from '../records/public.ts';
import type { ViewIndexService } from '../databases/public.ts';
import type { IndexesOptions } from './options.ts';

/** How often one process writes that a learned field was used again. */
const TOUCH_EVERY_MS = 60 * 60 * 1000;

/**
 * Learns from the record queries of this process which fields deserve an index: each field a query at least `slowMs`
 * slow filtered or sorted on counts once; at `learnAfter`, if the table holds `minRows` records or more, it is written
 * down as learned and the database's indexes
 * are synchronised (a job, so the request that taught it does not wait for the build). Fields in use again are
 * touched at most hourly, so that indexes nobody uses can be told apart and dropped. Nothing here waits: a tap of
 * `records.queries` runs in the request, and its writes go on in the background.
 */
export class IndexLearner {
  private readonly counts = new Map<string, number>();
  private readonly learned = new Set<string>();
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly indexes: () => ViewIndexService,
    private readonly options: IndexesOptions,
    private readonly logger: Logger,
  ) {}

  heard(query: QueryRan): void {
    const sortedAs = new Map(query.sorted.map((s) => [s.fieldId, s.direction]));
    for (const fieldId of new Set([...sortedAs.keys(), ...query.filtered])) {
      const field = `${query.databaseId}:${fieldId}`;
      const direction = sortedAs.get(fieldId);
      // A sort is served only by an index in its own direction (a field sorted both ways is learned both ways); a
      // filter by either.
      const served = direction ? this.learned.has(`${field}:${direction}`) : this.learned.has(`${field}:asc`) || this.learned.has(`${field}:desc`);
      if (served) {
        this.touch(query.databaseId, fieldId, field);
        continue;
      }
      if (query.ms < this.options.slowMs) continue;
      const key = `${field}:${direction ?? 'asc'}`;
      const count = (this.counts.get(key) ?? 0) + 1;
      this.counts.set(key, count);
      if (count < this.options.learnAfter) continue;
      this.learned.add(key);
      this.counts.delete(key);
      this.background(this.learn(query.databaseId, fieldId, count, direction ?? 'asc'), { databaseId: query.databaseId, fieldId });
    }
  }

  /** Forgets what this process learned of a database (its fields' modes changed, or learned indexes expired). */
  forget(databaseId: string): void {
    for (const key of [...this.learned, ...this.counts.keys()]) {
      if (key.startsWith(`${databaseId}:`)) {
        this.learned.delete(key);
        this.counts.delete(key);
      }
    }
  }

  /** `direction`: how the queries that taught it sorted it (`asc` when they only filtered): its index is built that way. */
  private async learn(databaseId: string, fieldId: string, uses: number, direction: 'asc' | 'desc'): Promise<void> {
    if (!(await this.bigEnough(databaseId))) {
      // Asked again once the table may have grown: the count starts over.
      this.learned.delete(`${databaseId}:${fieldId}:${direction}`);
      return;
    }
    const now = this.db.fn.now();
    const way = direction === 'desc' ? 'descending' : 'ascending';
    await this.db('index_fields')
      .insert({ database_id: databaseId, field_id: fieldId, mode: 'auto', uses, learned_at: now, last_used_at: now, ascending: direction === 'asc', descending: direction === 'desc' })
      .onConflict(['database_id', 'field_id'])
      .merge({ uses: this.db.raw('index_fields.uses + ?', [uses]), learned_at: this.db.raw('coalesce(index_fields.learned_at, now())'), last_used_at: now, [way]: true });
    await this.indexes().schedule(this.db, databaseId);
  }

  /** Whether the database's table holds at least `minRows` records: counted up to that many, no further. */
  private async bigEnough(databaseId: string): Promise<boolean> {
    if (this.options.minRows === 0) return true;
    const table = (await this.indexes().tableOf(databaseId)) ?? null;
    if (!table) return false;
    const [{ n }] = (await this.db.raw('SELECT count(*)::int AS n FROM (SELECT 1 FROM ?? LIMIT ?) s', [table, this.options.minRows])).rows;
    return n >= this.options.minRows;
  }

  private touch(databaseId: string, fieldId: string, key: string): void {
    const last = this.touched.get(key) ?? 0;
    if (Date.now() - last < TOUCH_EVERY_MS) return;
    this.touched.set(key, Date.now());
    this.background(
      this.db('index_fields').where({ database_id: databaseId, field_id: fieldId }).update({ last_used_at: this.db.fn.now(), uses: this.db.raw('uses + 1') }),
      { databaseId, fieldId },
    );
  }

  private background(work: Promise<unknown>, about: Record<string, string>): void {
    work.catch((err: unknown) => this.logger.warn({ err, ...about }, 'could not record a field for adaptive indexes'));
  }
}
