import type { Db } from '../../core/db.ts';
import { RateLimiter } from '../../core/rate-limiter.ts';
import { StoredSecret } from '../../core/stored-secret.ts';

/**
 * Counts form submissions per client address, a minute at a time, in `public_rate_counters` (shared by every
 * instance). The address is hashed with a secret of the instance (`public_keys`): a plain hash of an IPv4 address
 * could be reversed by trying them all, so the counters hold nothing that names the submitter.
 */
export class SubmissionLimiter {
  private readonly limiter: RateLimiter;
  private readonly pepper: StoredSecret;

  constructor(
    db: Db,
    private readonly perMinute: number,
  ) {
    this.limiter = new RateLimiter(db, 'public_rate_counters');
    this.pepper = new StoredSecret(db, 'public_keys', 'rate-keys');
  }

  /** Counts one submission from `address`; 429 with `Retry-After` past the limit. */
  async hit(address: string): Promise<void> {
    await this.limiter.hit([{ key: `form-submit:${await this.pepper.get()}:${address}`, max: this.perMinute }], 1);
  }
}
