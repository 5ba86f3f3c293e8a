import { hash, verify } from '@node-rs/argon2';
import { inTransaction, type Db, type Trx } from '../../core/db.ts';
import { conflict, invalidField } from '../../core/errors.ts';
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

export interface NewUser {
  email: string;
  name: string;
  /** Absent for accounts created through an OAuth provider: they cannot sign in with a password. */
  password?: string;
  instanceAdmin?: boolean;
}

/** A hash to verify against when the email is unknown, so timing does not reveal which emails exist. */
const DUMMY_HASH = hash('tessera-timing-equaliser');

export class UserService {
  constructor(private readonly db: Db) {}

  toPublic(u: Pick<UserRow, 'id' | 'email' | 'name' | 'avatar_key' | 'avatar_updated_at' | 'created_at'>): PublicUser {
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
    return db<UserRow>('users').whereRaw('lower(email) = lower(?)', [email.trim()]).first();
  }

  /**
   * Runs `fn` in a transaction holding the user-creation lock, so that "the email is free"
   * and "this is the first user" stay true until the insert commits, on every instance.
   */
  withCreationLock<T>(fn: (trx: Trx) => Promise<T>, trx?: Db): Promise<T> {
    return inTransaction(
      this.db,
      async (t) => {
        await t.raw('SELECT pg_advisory_xact_lock(hashtext(?))', ['tessera.users.create']);
        return fn(t);
      },
      trx,
    );
  }

  /** Creates a user; the first user of an instance becomes its instance admin. */
  async create(input: NewUser, trx?: Db): Promise<UserRow> {
    const passwordHash = input.password === undefined ? null : await hash(input.password);
    return this.withCreationLock(async (t) => {
      if (await this.findByEmail(input.email, t)) throw conflict('An account with this email already exists.', undefined, 'email_taken');
      const { count } = (await t('users').count({ count: '*' }).first()) as { count: number };
      const [row] = await t<UserRow>('users')
        .insert({
          email: input.email.trim(),
          name: input.name.trim(),
          password_hash: passwordHash,
          is_instance_admin: input.instanceAdmin === true || Number(count) === 0,
        })
        .returning('*');
      return row;
    }, trx);
  }

  /** Makes the owner of `email` an instance admin, creating the account when there is none (the password is then required). */
  async ensureInstanceAdmin(input: { email: string; name: string; password?: string }): Promise<{ user: UserRow; created: boolean }> {
    return this.withCreationLock(async (trx) => {
      const existing = await this.findByEmail(input.email, trx);
      if (!existing) {
        if (input.password === undefined) throw invalidField('/password', 'A password is required to create a new account.');
        return { user: await this.create({ ...input, instanceAdmin: true }, trx), created: true };
      }
      const [user] = await trx<UserRow>('users')
        .where({ id: existing.id })
        .update({ is_instance_admin: true, updated_at: trx.fn.now() })
        .returning('*');
      return { user, created: false };
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
