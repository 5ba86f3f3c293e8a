import type { Db } from './db.ts';
import { rateLimited } from './errors.ts';
import { hashSecret } from './secrets.ts';

const PRUNE_EVERY_MS = 60_000;

export interface RateLimit {
  /** What is counted, e.g. `sign-up-ip:127.0.0.1`; stored only as a hash. */
  key: string;
  max: number;
}

/**
 * Counts attempts (sign-ups, reset requests, public form submissions) per key in fixed windows, in
 * the database so every instance sees the same counters. Every attempt counts, whatever its
 * outcome: what is limited is asking, not failing. Each plugin keeps its counters in a table of its
 * own, `(key text primary key, hits integer, window_ends timestamptz indexed)`, holding only hashed keys.
 */
export class RateLimiter {
  private prunedAt = 0;

  constructor(
    private readonly db: Db,
    private readonly table: string,
  ) {}

  /**
   * Counts one attempt against each key and throws 429 when any is past its limit. Runs on
   * the shared connection, never in the caller's transaction: a refused or failed attempt
   * (409 `email_taken`) must still count.
   */
  async hit(limits: RateLimit[], windowMinutes: number): Promise<void> {
    const keys = limits.map((l) => hashSecret(l.key));
    const t = this.table;
    const live = `${t}.window_ends > now()`;
    const { rows } = await this.db.raw<{ rows: Array<{ key: string; hits: number; retry_after: number }> }>(
      `INSERT INTO ${t} (key, hits, window_ends)
       VALUES ${keys.map(() => `(?, 1, now() + ? * interval '1 minute')`).join(', ')}
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN ${live} THEN ${t}.hits + 1 ELSE 1 END,
         window_ends = CASE WHEN ${live} THEN ${t}.window_ends ELSE excluded.window_ends END
       RETURNING key, hits, CEIL(EXTRACT(EPOCH FROM window_ends - now()))::int AS retry_after`,
      keys.flatMap((k) => [k, windowMinutes]),
    );
    await this.prune();
    const blocked = rows.filter((r) => r.hits > limits[keys.indexOf(r.key)].max);
    if (blocked.length) throw rateLimited(Math.max(1, ...blocked.map((r) => r.retry_after)));
  }

  /**
   * Counters whose window has ended go, at most once a minute per process: a statement (and a commit) less on almost
   * every hit, and an ended counter left meanwhile is harmless (the next hit of its key starts it again). Its own
   * statement after the count, never joined to it: the two locking each other's rows in two hits could deadlock.
   */
  private async prune(): Promise<void> {
    if (Date.now() - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = Date.now();
    await this.db(this.table).where('window_ends', '<=', this.db.fn.now()).delete();
  }
}
