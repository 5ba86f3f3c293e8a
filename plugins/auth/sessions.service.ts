import type { Db } from '../../core/db.ts';
import type { Principal } from '../../core/principal.ts';
import { hashSecret, randomSecret } from '../../core/secrets.ts';

export const SESSION_PREFIX = 'tss_';

export class SessionService {
  constructor(private readonly db: Db, private readonly ttlHours: number) {}

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
    const row = await this.db('sessions as s')
      .join('users as u', 'u.id', 's.user_id')
      .where('s.token_hash', hashSecret(token))
      .where('s.expires_at', '>', this.db.fn.now())
      .whereNull('u.disabled_at')
      .first('s.id as session_id', 'u.id', 'u.email', 'u.name', 'u.is_instance_admin');
    if (!row) return undefined;
    return {
      kind: 'session',
      sessionId: row.session_id,
      user: { id: row.id, email: row.email, name: row.name, is_instance_admin: row.is_instance_admin },
    };
  }

  async revoke(sessionId: string): Promise<void> {
    await this.db('sessions').where({ id: sessionId }).delete();
  }

  async revokeAllOf(userId: string): Promise<void> {
    await this.db('sessions').where({ user_id: userId }).delete();
  }
}
