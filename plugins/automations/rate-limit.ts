import type { Db } from '../../core/db.ts';
import { AppError, rateLimited } from '../../core/errors.ts';
import { RateLimiter } from '../../core/rate-limiter.ts';

export const RATE_COUNTERS = 'automation_rate_counters';

/**
 * Runs started per workspace per minute, counted in the database (core/rate-limiter.ts) so the limit holds across
 * processes. Counted by the run's job as the run starts, never in the write that queued it: the write path pays nothing.
 */
export class RunRate {
  private readonly limiter: RateLimiter;

  constructor(
    db: Db,
    private readonly perMinute: number,
  ) {
    this.limiter = new RateLimiter(db, RATE_COUNTERS);
  }

  async take(workspaceId: string): Promise<boolean> {
    try {
      await this.limiter.hit([{ key: `automation-runs:${workspaceId}`, max: this.perMinute }], 1);
      return true;
    } catch (err) {
      if (err instanceof AppError && err.code === rateLimited.code) return false;
      throw err;
    }
  }
}
