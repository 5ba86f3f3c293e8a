import type { Db } from '../../core/db.ts';
import { rateLimited } from '../../core/errors.ts';
import { hashSecret } from '../../core/secrets.ts';

export interface SignInLimits {
  /** Failures for one email from one client address. */
  maxFailures: number;
  /** Failures from one client address, whatever the email. */
  maxFailuresPerIp: number;
  windowMinutes: number;
  /** Failures for one email from any address: against guessing spread over many addresses. */
  maxFailuresPerAccount: number;
  accountWindowMinutes: number;
}

interface Counter {
  key: string;
  max: number;
  windowSeconds: number;
  /** The email's key, for counters about an email (erasure finds them by it). */
  account: string | null;
}

/** Whether a counter's window is still open (`table` qualifies the columns where an upsert needs it). */
const live = (table = '') => `${table}window_started > now() - ${table}window_seconds * interval '1 second'`;

const normalised = (email: string) => email.trim().toLowerCase();

/**
 * Counts failed sign-ins in the database, so every instance sees the same counters, under three keys: the email from
 * one address, the address, and the email from anywhere. The first two are small and short, so whoever guesses slows
 * themselves down, never the account's owner signing in from elsewhere; the third is larger and longer, a ceiling on
 * guesses spread over many addresses. Keys are hashes: unknown emails typed at the form are not stored, and an email
 * that has no account is counted exactly like one that has.
 */
export class SignInLimiter {
  constructor(private readonly db: Db, private readonly limits: SignInLimits) {}

  /** The key of an email's own counter (any case); counters about the email carry it as `account_key`. */
  static emailKey(email: string): string {
    return hashSecret(`email:${normalised(email)}`);
  }

  private counters(email: string, ip: string): Counter[] {
    const account = SignInLimiter.emailKey(email);
    const window = this.limits.windowMinutes * 60;
    return [
      { key: hashSecret(`email-ip:${normalised(email)}\n${ip}`), max: this.limits.maxFailures, windowSeconds: window, account },
      { key: hashSecret(`ip:${ip}`), max: this.limits.maxFailuresPerIp, windowSeconds: window, account: null },
      { key: account, max: this.limits.maxFailuresPerAccount, windowSeconds: this.limits.accountWindowMinutes * 60, account },
    ];
  }

  /** Throws 429 while any of the attempt's counters has used up its failures in its current window. */
  async assertAllowed(email: string, ip: string): Promise<void> {
    const counters = this.counters(email, ip);
    const { rows } = await this.db.raw<{ rows: Array<{ key: string; failures: number; retry_after: number }> }>(
      `SELECT key, failures, CEIL(EXTRACT(EPOCH FROM window_started + window_seconds * interval '1 second' - now()))::int AS retry_after
         FROM auth_sign_in_failures
        WHERE key IN (${counters.map(() => '?').join(', ')}) AND ${live()}`,
      counters.map((c) => c.key),
    );
    const blocked = rows.filter((r) => r.failures >= counters.find((c) => c.key === r.key)!.max);
    if (blocked.length) throw rateLimited(Math.max(1, ...blocked.map((r) => r.retry_after)));
  }

  /** Counts one failure against each counter; a window that has ended starts over. */
  async recordFailure(email: string, ip: string): Promise<void> {
    const counters = this.counters(email, ip);
    const stored = live('auth_sign_in_failures.');
    await this.db.raw(
      `INSERT INTO auth_sign_in_failures (key, failures, window_started, window_seconds, account_key)
       VALUES ${counters.map(() => '(?, 1, now(), ?, ?)').join(', ')}
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN ${stored} THEN auth_sign_in_failures.failures + 1 ELSE 1 END,
         window_started = CASE WHEN ${stored} THEN auth_sign_in_failures.window_started ELSE now() END,
         window_seconds = excluded.window_seconds`,
      counters.flatMap((c) => [c.key, c.windowSeconds, c.account]),
    );
    await this.db.raw(`DELETE FROM auth_sign_in_failures WHERE NOT (${live()})`);
  }

  /**
   * A successful sign-in forgives the failures of its email from its address; not the address's (one good account
   * must not unlock an attacker's address), nor the account's (the owner signing in must not reset a distributed
   * guesser's ceiling).
   */
  async clear(email: string, ip: string): Promise<void> {
    await this.db('auth_sign_in_failures').where({ key: this.counters(email, ip)[0].key }).delete();
  }
}
