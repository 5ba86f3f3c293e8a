import type { Db } from '../../core/db.ts';
import { rateLimited } from '../../core/errors.ts';
import { hashSecret } from '../../core/secrets.ts';

export interface SignInLimits {
  maxFailures: number;
  maxFailuresPerIp: number;
  windowMinutes: number;
}

const WINDOW = `? * interval '1 second'`;

/**
 * Counts failed sign-ins per email and per IP address in the database, so every instance
 * sees the same counters. Keys are hashes: unknown emails typed at the form are not stored,
 * and an email that has no account is counted exactly like one that has.
 */
export class SignInLimiter {
  private readonly windowSeconds: number;

  constructor(private readonly db: Db, private readonly limits: SignInLimits) {
    this.windowSeconds = limits.windowMinutes * 60;
  }

  /** The counter's key for an email (any case); an erasure deletes it by this key too. */
  static emailKey(email: string): string {
    return hashSecret(`email:${email.trim().toLowerCase()}`);
  }

  private ipKey(ip: string): string {
    return hashSecret(`ip:${ip}`);
  }

  /** Throws 429 while the email or the address has used up its failures in the current window. */
  async assertAllowed(email: string, ip: string): Promise<void> {
    const emailKey = SignInLimiter.emailKey(email);
    const { rows } = await this.db.raw<{ rows: Array<{ key: string; failures: number; retry_after: number }> }>(
      `SELECT key, failures, CEIL(EXTRACT(EPOCH FROM window_started + ${WINDOW} - now()))::int AS retry_after
         FROM auth_sign_in_failures
        WHERE key IN (?, ?) AND window_started > now() - ${WINDOW}`,
      [this.windowSeconds, emailKey, this.ipKey(ip), this.windowSeconds],
    );
    const blocked = rows.filter((r) => r.failures >= (r.key === emailKey ? this.limits.maxFailures : this.limits.maxFailuresPerIp));
    if (blocked.length) throw rateLimited(Math.max(1, ...blocked.map((r) => r.retry_after)));
  }

  /** Counts one failure against both the email and the address; a window that has ended starts over. */
  async recordFailure(email: string, ip: string): Promise<void> {
    const live = `auth_sign_in_failures.window_started > now() - ${WINDOW}`;
    await this.db.raw(
      `INSERT INTO auth_sign_in_failures (key, failures, window_started) VALUES (?, 1, now()), (?, 1, now())
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN ${live} THEN auth_sign_in_failures.failures + 1 ELSE 1 END,
         window_started = CASE WHEN ${live} THEN auth_sign_in_failures.window_started ELSE now() END`,
      [SignInLimiter.emailKey(email), this.ipKey(ip), this.windowSeconds, this.windowSeconds],
    );
    await this.db.raw(`DELETE FROM auth_sign_in_failures WHERE window_started <= now() - ${WINDOW}`, [this.windowSeconds]);
  }

  /** A successful sign-in forgives the email's failures (not the address's: one good account must not unlock an attacker's IP). */
  async clear(email: string): Promise<void> {
    await this.db('auth_sign_in_failures').where({ key: SignInLimiter.emailKey(email) }).delete();
  }
}
