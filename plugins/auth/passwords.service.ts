import { inTransaction, type Db } from '../../core/db.ts';
import { notFound, serviceUnavailable } from '../../core/errors.ts';
import { hashSecret, randomSecret } from '../../core/secrets.ts';
import type { MailSender } from '../mail/public.ts';
import type { AuthOptions } from './options.ts';
import type { UserRow, UserService } from './users.service.ts';
import type { SessionService } from './sessions.service.ts';
import type { SignInLimiter } from './sign-in-limiter.ts';
import type { RateLimiter } from '../../core/rate-limiter.ts';
import { emailKey, ipKey } from './rate-keys.ts';
import { AuthErrors } from './errors.ts';
import { resetMail } from './passwords.mail.ts';

const TABLE = 'auth_password_resets';
/** ~256 bits: guessing is hopeless, so confirming needs no rate limit of its own. */
const RESET_TOKEN_CHARS = 43;

/** Where reset links point: `<origin>/reset-password/<token>`. */
export interface LinkBase {
  origin: string;
}

/** Changing a password, resetting a forgotten one by mail, and an instance admin's forced reset. */
export class PasswordService {
  constructor(
    private readonly db: Db,
    private readonly users: UserService,
    private readonly sessions: SessionService,
    private readonly signInLimiter: SignInLimiter,
    private readonly limiter: RateLimiter,
    /** The mail plugin's sender when it is enabled: resets are mailed, so without it there are none. */
    private readonly mailer: () => MailSender | null,
    private readonly options: Pick<AuthOptions, 'passwordResetTtlMinutes' | 'passwordResetRateLimit'>,
  ) {}

  /**
   * Wrong guesses count as failed sign-ins of the user's email: a stolen session cannot be used
   * to try passwords faster than the sign-in form allows.
   */
  async change(userId: string, sessionId: string, input: { current: string; next: string; ip: string }): Promise<void> {
    const user = await this.users.findById(userId);
    if (!user) throw notFound('No such user.');
    await this.signInLimiter.assertAllowed(user.email, input.ip);
    if (!(await this.users.checkPassword(user, input.current))) {
      await this.signInLimiter.recordFailure(user.email, input.ip);
      throw AuthErrors.wrong_password();
    }
    await inTransaction(this.db, async (trx) => {
      await this.users.setPassword(user.id, input.next, trx);
      await this.sessions.revokeOthersOf(user.id, sessionId, trx);
      // A token mailed before the change would undo it.
      await trx(TABLE).where({ user_id: user.id }).delete();
    });
  }

  /** Mails a reset link when `email` belongs to an enabled account; the caller's answer is the same either way. */
  async request(email: string, ip: string, link: LinkBase): Promise<void> {
    const mailer = this.sender();
    const { maxPerEmail, maxPerIp, windowMinutes } = this.options.passwordResetRateLimit;
    await this.limiter.hit([{ key: emailKey('reset', email), max: maxPerEmail }, { key: ipKey('reset', ip), max: maxPerIp }], windowMinutes);
    await inTransaction(this.db, async (trx) => {
      const user = await this.users.findByEmail(email, trx);
      if (!user || user.disabled_at) return;
      await this.issue(trx, user, link, mailer, false);
    });
  }

  /** The admin's reset: signed out everywhere and no usable password until the mailed link is used. */
  async force(userId: string, link: LinkBase): Promise<void> {
    const mailer = this.sender();
    await inTransaction(this.db, async (trx) => {
      const user = await trx<UserRow>('users').where({ id: userId }).forNoKeyUpdate().first();
      if (!user) throw notFound('No such user.');
      await this.users.setPassword(user.id, null, trx);
      await this.sessions.revokeAllOf(user.id, trx);
      await this.issue(trx, user, link, mailer, true);
    });
  }

  /** Consumes the token (once, atomically), sets the password and ends every session of its user. */
  async confirm(token: string, password: string): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      const [row] = await trx(TABLE)
        .where({ token_hash: hashSecret(token) })
        .whereNull('used_at')
        .where('expires_at', '>', trx.fn.now())
        .update({ used_at: trx.fn.now() })
        .returning('user_id');
      if (!row) throw AuthErrors.reset_token_invalid();
      await this.users.setPassword(row.user_id, password, trx);
      await this.sessions.revokeAllOf(row.user_id, trx);
    });
  }

  private sender(): MailSender {
    const mailer = this.mailer();
    if (!mailer) throw serviceUnavailable('Password reset mails a link, and the mail plugin is not enabled on this instance.');
    return mailer;
  }

  /** Replaces the user's earlier tokens, so only the newest link works; the mail is queued in `trx`, so it goes only if this commits. */
  private async issue(trx: Db, user: UserRow, link: LinkBase, mailer: MailSender, byAdmin: boolean): Promise<void> {
    const ttlMinutes = this.options.passwordResetTtlMinutes;
    await trx(TABLE).where({ user_id: user.id }).delete();
    await trx(TABLE).where('expires_at', '<=', trx.fn.now()).delete();
    const token = randomSecret('', RESET_TOKEN_CHARS);
    await trx(TABLE).insert({ user_id: user.id, token_hash: hashSecret(token), expires_at: trx.raw(`now() + ? * interval '1 minute'`, [ttlMinutes]) });
    await mailer.send(resetMail({ email: user.email, resetUrl: `${link.origin}/reset-password/${token}`, token, ttlMinutes, byAdmin }), trx);
  }
}
