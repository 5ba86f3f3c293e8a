import { createHmac, randomBytes } from 'node:crypto';
import type { Db } from '../../core/db.ts';
import { notFound } from '../../core/errors.ts';
import { safeEqual } from '../../core/secrets.ts';
import type { UserService } from '../auth/public.ts';
import type { PreferencesService } from '../users/public.ts';

const PURPOSE = 'notifications.unsubscribe';
const NO_LINK = 'No such unsubscribe link.';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Unsubscribe links that work without signing in: the token names a user and a notification type and is signed
 * with the instance's key (HMAC-SHA256), so nothing is stored per mail and nobody can make one for someone else.
 * A link stays good as long as the key: using it twice, or after email was turned back on, turns email off again.
 */
export class Unsubscriber {
  private key?: Promise<string>;

  constructor(
    private readonly db: Db,
    private readonly configuredKey: string | undefined,
    private readonly users: UserService,
    private readonly preferences: PreferencesService,
  ) {}

  /** Loads the key: a mailer calls it before its transaction, so that making links inside it needs no other connection. */
  async ready(): Promise<void> {
    await this.keyOf();
  }

  /** A link's token for one type, or for several (a digest's `List-Unsubscribe`: every type the mail holds). */
  async token(userId: string, types: string | string[]): Promise<string> {
    const named = Array.isArray(types) && types.length === 1 ? types[0] : types;
    const payload = Buffer.from(JSON.stringify([userId, named])).toString('base64url');
    return `${payload}.${await this.sign(payload)}`;
  }

  /** Turns email off for the token's user and types; a token not made here, or naming a user gone, is a 404. */
  async unsubscribe(token: string): Promise<{ type: string; types: string[]; email: false }> {
    const named = await this.verify(token);
    if (!named || !(await this.users.findById(named.userId))) throw notFound(NO_LINK);
    for (const type of named.types) await this.preferences.turnOff(named.userId, type, 'email');
    return { type: named.types[0], types: named.types, email: false };
  }

  private async verify(token: string): Promise<{ userId: string; types: string[] } | null> {
    const [payload, signature, ...rest] = token.split('.');
    if (!payload || !signature || rest.length > 0 || !safeEqual(signature, await this.sign(payload))) return null;
    try {
      const [userId, named] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
      const types = typeof named === 'string' ? [named] : named;
      const valid = Array.isArray(types) && types.length > 0 && types.every((t) => typeof t === 'string');
      return typeof userId === 'string' && UUID.test(userId) && valid ? { userId, types: types as string[] } : null;
    } catch {
      return null;
    }
  }

  private async sign(payload: string): Promise<string> {
    return createHmac('sha256', await this.keyOf()).update(`${PURPOSE}:${payload}`).digest('base64url');
  }

  private keyOf(): Promise<string> {
    // A failed first read is tried again by the next link, not remembered.
    return (this.key ??= this.load().catch((err: unknown) => {
      this.key = undefined;
      throw err;
    }));
  }

  /** The option, else one random key made by whichever process asks first. */
  private async load(): Promise<string> {
    if (this.configuredKey) return this.configuredKey;
    await this.db('notifications_keys').insert({ name: 'unsubscribe', secret: randomBytes(32).toString('hex') }).onConflict('name').ignore();
    const row: { secret: string } = await this.db('notifications_keys').where({ name: 'unsubscribe' }).first('secret');
    return row.secret;
  }
}
