import type { CacheSignals, LocalCache } from '../../core/cache.ts';
import { countRows, type Database, type Db } from '../../core/db.ts';
import { PRINCIPAL_USER_COLUMNS, principalUserOf, type Principal, type PrincipalUserRow } from '../../core/principal.ts';
import { hashSecret, randomSecret } from '../../core/secrets.ts';

export const SESSION_PREFIX = 'tss_';

/** Constant text: a prepared statement on PostgreSQL, since it runs on every request. */
const LOOKUP = `
  SELECT s.id AS session_id, s.expires_at, ${PRINCIPAL_USER_COLUMNS}
    FROM sessions s
    JOIN users u ON u.id = s.user_id
   WHERE s.token_hash = $1
     AND s.expires_at > now()
     AND u.disabled_at IS NULL`;

type SessionRow = PrincipalUserRow & { session_id: string; expires_at: Date };

export class SessionService {
  private readonly db: Db;
  private readonly lookup: (values: unknown[]) => Promise<SessionRow[]>;
  private readonly cache: LocalCache<SessionRow | undefined>;

  constructor(database: Database, caches: CacheSignals, private readonly ttlHours: number) {
    this.db = database.knex;
    this.lookup = database.prepared('auth.session_lookup', LOOKUP);
    // Kept until the session or its user changes (the kernel's `sessions` and `users` signals): sign-out and disabling act at once.
    this.cache = caches.create('auth.sessions', { topics: { sessions: 'group', users: 'all' } });
  }

  async issue(userId: string, userAgent?: string): Promise<{ token: string; expiresAt: Date }> {
    const token = randomSecret(SESSION_PREFIX, 40);
    const expiresAt = new Date(Date.now() + this.ttlHours * 3600_000);
    // Expired sessions are dead weight; dropping the user's own on each sign-in keeps the table bounded.
    await this.db('sessions').where({ user_id: userId }).where('expires_at', '<=', this.db.fn.now()).delete();
    await this.db('sessions').insert({
      user_id: userId,
      token_hash: hashSecret(token),
      user_agent: userAgent?.slice(0, 500) ?? null,
      expires_at: expiresAt,
    });
    return { token, expiresAt };
  }

  /** The session principal for a live token of an active user; checked on every request. */
  async authenticate(token: string): Promise<Principal | undefined> {
    if (!token.startsWith(SESSION_PREFIX)) return undefined;
    const hash = hashSecret(token);
    const row = await this.cache.get(hash, '', async () => (await this.lookup([hash]))[0]);
    if (!row || row.expires_at.getTime() <= Date.now()) return undefined;
    return { kind: 'session', sessionId: row.session_id, user: principalUserOf(row) };
  }

  /** Sessions not yet expired, on the whole instance. */
  countActive(): Promise<number> {
    return countRows(this.db('sessions').where('expires_at', '>', this.db.fn.now()));
  }

  async revoke(sessionId: string): Promise<void> {
    await this.db('sessions').where({ id: sessionId }).delete();
  }

  async revokeAllOf(userId: string, trx: Db = this.db): Promise<void> {
    await trx('sessions').where({ user_id: userId }).delete();
  }

  /** Every session of the user but `keepSessionId`: a password change signs out everyone else who had it. */
  async revokeOthersOf(userId: string, keepSessionId: string, trx: Db = this.db): Promise<void> {
    await trx('sessions').where({ user_id: userId }).whereNot({ id: keepSessionId }).delete();
  }
}
