import type { Db } from './db.ts';
import { rateLimited } from './errors.ts';
import { hashSecret } from './secrets.ts';

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
    // One statement, so one round trip and one commit: windows that have ended are pruned (all but the keys counted
    // here, which the upsert starts again: a statement may change a row only once) as the attempt is counted.
    const { rows } = await this.db.raw<{ rows: Array<{ key: string; hits: number; retry_after: number }> }>(
      `WITH pruned AS (DELETE FROM ${t} WHERE window_ends <= now() AND key NOT IN (${keys.map(() => '?').join(', ')}))
       INSERT INTO ${t} (key, hits, window_ends)
       VALUES ${keys.map(() => `(?, 1, now() + ? * interval '1 minute')`).join(', ')}
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN ${live} THEN ${t}.hits + 1 ELSE 1 END,
         window_ends = CASE WHEN ${live} THEN ${t}.window_ends ELSE excluded.window_ends END
       RETURNING key, hits, CEIL(EXTRACT(EPOCH FROM window_ends - now()))::int AS retry_after`,
      [...keys, ...keys.flatMap((k) => [k, windowMinutes])],
    );
    const blocked = rows.filter((r) => r.hits > limits[keys.indexOf(r.key)].max);
    if (blocked.length) throw rateLimited(Math.max(1, ...blocked.map((r) => r.retry_after)));
  }
}
