import type { Logger } from 'pino';
import type { Db } from '../../core/db.ts';
import type { QueryRan } from '../records/public.ts';
import type { ViewIndexService } from '../databases/public.ts';

/** A table is looked at most this often. */
const LOOK_EVERY_MS = 60_000;
/** Changed since the last ANALYZE by more than this share of its rows (and at least MIN_CHANGES rows): analysed again. */
const CHANGED_SHARE = 0.1;
const MIN_CHANGES = 1000;

/**
 * Keeps the planner's statistics of records tables fresh after large loads. PostgreSQL's autovacuum analyses a table
 * a minute or more after it changed, and PGlite has no autovacuum at all; meanwhile a plan made from no statistics
 * (a table just filled) can take ten times as long. A slow query makes this look at its table: never analysed, or
 * changed by more than a tenth since, it is analysed at once, in the background, while the query's answer goes out.
 */
export class StatisticsKeeper {
  private readonly lookedAt = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly indexes: () => ViewIndexService,
    private readonly slowMs: number,
    private readonly logger: Logger,
  ) {}

  heard(query: QueryRan): void {
    if (query.ms < this.slowMs) return;
    const last = this.lookedAt.get(query.databaseId) ?? 0;
    if (Date.now() - last < LOOK_EVERY_MS) return;
    this.lookedAt.set(query.databaseId, Date.now());
    this.freshen(query.databaseId).catch((err: unknown) => this.logger.warn({ err, databaseId: query.databaseId }, 'could not refresh the statistics of a records table'));
  }

  /** Whether the table was analysed now. */
  async freshen(databaseId: string): Promise<boolean> {
    const table = await this.indexes().tableOf(databaseId);
    if (!table) return false;
    if (!(await this.stale(table))) return false;
    const started = performance.now();
    await this.db.raw('ANALYZE ??', [table]);
    this.logger.info({ databaseId, ms: Math.round(performance.now() - started) }, 'records table analysed after a large change');
    return true;
  }

  /**
   * Never analysed (no column statistics at all, whatever the row estimate an index build left) and holding at least
   * MIN_CHANGES rows; or changed since the last ANALYZE by more than CHANGED_SHARE of its rows, as the statistics
   * collector counts, unless that ANALYZE is less than LOOK_EVERY_MS old. The collector may lag behind the writes:
   * changes flushed by their backends after an ANALYZE counted again what it had just read (seen on a loaded CI).
   */
  private async stale(table: string): Promise<boolean> {
    const { rows: described } = await this.db.raw('SELECT EXISTS (SELECT 1 FROM pg_stats WHERE schemaname = current_schema() AND tablename = ?) AS yes', [table]);
    if (!described[0].yes) {
      const { rows } = await this.db.raw('SELECT count(*)::int AS n FROM (SELECT 1 FROM ?? LIMIT ?) s', [table, MIN_CHANGES]);
      return rows[0].n >= MIN_CHANGES;
    }
    const { rows } = await this.db.raw(
      `SELECT n_live_tup::bigint AS live, n_mod_since_analyze::bigint AS changed,
              coalesce(greatest(last_analyze, last_autoanalyze) > now() - make_interval(secs => ?), false) AS recent
         FROM pg_stat_user_tables WHERE relid = to_regclass(?)`,
      [LOOK_EVERY_MS / 1000, table],
    );
    const stats = rows[0] as { live: string; changed: string; recent: boolean } | undefined;
    return !!stats && !stats.recent && Number(stats.changed) >= Math.max(MIN_CHANGES, CHANGED_SHARE * Number(stats.live));
  }
}
