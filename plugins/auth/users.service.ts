import { hash, verify } from '@node-rs/argon2';
import type { Db } from '../../core/db.ts';
import { conflict } from '../../core/errors.ts';
import type { PublicUser } from './schemas.ts';

export interface UserRow {
  id: string;
  email: string;
  name: string;
  password_hash: string | null;
  is_instance_admin: boolean;
  disabled_at: Date | null;
  avatar_key: string | null;
  avatar_updated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A hash to verify against when the email is unknown, so timing does not reveal which emails exist. */
const DUMMY_HASH = hash('tessera-timing-equaliser');

export class UserService {
  constructor(private readonly db: Db) {}

  toPublic(u: UserRow): PublicUser {
    return {
      id: u.id,
      email: u.email,
      name: u.name,
      avatar_url: u.avatar_key ? `/api/v1/users/${u.id}/avatar?v=${u.avatar_updated_at?.getTime() ?? 0}` : null,
      created_at: u.created_at.toISOString(),
    };
  }

  findById(id: string, db: Db = this.db): Promise<UserRow | undefined> {
    return db<UserRow>('users').where({ id }).first();
  }

  findByEmail(email: string, db: Db = this.db): Promise<UserRow | undefined> {
    return db<UserRow>('users').whereRaw('lower(email) = lower(?)', [email]).first();
  }

  /** Creates a user; the first user of an instance becomes its instance admin. */
  async create(input: { email: string; name: string; password: string; instanceAdmin?: boolean }): Promise<UserRow> {
    const passwordHash = await hash(input.password);
    return this.db.transaction(async (trx) => {
      // Serialise sign-ups so exactly one "first user" can exist.
      await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', ['tessera.users.create']);
      if (await this.findByEmail(input.email, trx)) throw conflict('An account with this email already exists.', undefined, 'email_taken');
      const { count } = (await trx('users').count({ count: '*' }).first()) as { count: number };
      const [row] = await trx<UserRow>('users')
        .insert({
          email: input.email.trim(),
          name: input.name.trim(),
          password_hash: passwordHash,
          is_instance_admin: input.instanceAdmin === true || Number(count) === 0,
        })
        .returning('*');
      return row;
    });
  }

  /** The user if the password matches and the account is active. */
  async verifyCredentials(email: string, password: string): Promise<UserRow | null> {
    const user = await this.findByEmail(email);
    const ok = await verify(user?.password_hash ?? (await DUMMY_HASH), password).catch(() => false);
    return user && user.password_hash && ok && !user.disabled_at ? user : null;
  }

  async update(id: string, patch: { name?: string }): Promise<UserRow> {
    const [row] = await this.db<UserRow>('users')
      .where({ id })
      .update({ ...(patch.name !== undefined ? { name: patch.name.trim() } : {}), updated_at: this.db.fn.now() })
      .returning('*');
    return row;
  }
}
