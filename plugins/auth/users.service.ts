import { inTransaction, type Database, type Db, type Trx } from '../../core/db.ts';
import { invalidField } from '../../core/errors.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import { containsPattern } from '../../core/like-pattern.ts';
import type { PublicUser } from './schemas.ts';
import type { AuthOptions } from './options.ts';
import type { SignUpHooks } from './hooks.ts';
import { AuthErrors } from './errors.ts';
import type { PasswordHasher } from './password-hasher.ts';

export interface UserRow {
  id: string;
  email: string;
  name: string;
  password_hash: string | null;
  is_instance_admin: boolean;
  disabled_at: Date | null;
  /** `bouncing` or `complained` once the mail provider said so: mail that can wait is not sent. */
  email_status: EmailStatus;
  avatar_key: string | null;
  avatar_updated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type EmailStatus = 'ok' | 'bouncing' | 'complained';

/** An account as the instance's administration sees it. */
export type AccountRow = Pick<UserRow, 'id' | 'email' | 'name' | 'is_instance_admin' | 'disabled_at' | 'email_status' | 'created_at'>;

/** An administrator's change to an account; `disabled` sets or clears `disabled_at`. */
export interface AccountChange {
  name?: string;
  is_instance_admin?: boolean;
  disabled?: boolean;
}

const ACCOUNT_COLUMNS = ['u.id', 'u.email', 'u.name', 'u.is_instance_admin', 'u.disabled_at', 'u.email_status', 'u.created_at'];

export interface NewUser {
  email: string;
  name: string;
  /** Absent for accounts created through an OAuth provider: they cannot sign in with a password. */
  password?: string;
  instanceAdmin?: boolean;
}

/** What other plugins show of a user next to their own rows (members, watchers, user cells). */
export interface UserContact {
  id: string;
  email: string;
  name: string;
}

/** Constant text: a prepared statement on PostgreSQL, since record pages ask it for the people they show. */
const CONTACTS = 'SELECT id, email, name FROM users WHERE id = ANY($1::uuid[])';

export class UserService {
  private readonly db: Db;
  private readonly contactsLookup: (values: unknown[], trx?: Db) => Promise<UserContact[]>;

  constructor(
    storage: Database,
    private readonly policy: AuthOptions['signUp'],
    private readonly hooks: SignUpHooks,
    private readonly passwords: PasswordHasher,
  ) {
    this.db = storage.knex;
    this.contactsLookup = storage.prepared('auth.user_contacts', CONTACTS);
  }

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

  /** The users among `ids` that exist, in no order; one statement. `db` is the caller's transaction, if any. */
  async contactsOf(ids: readonly string[], db?: Db): Promise<UserContact[]> {
    return ids.length === 0 ? [] : this.contactsLookup([ids], db);
  }

  /** The names of the users among `ids` that exist, by id (asked once each). `db` is the caller's transaction, if any. */
  async namesOf(ids: Iterable<string>, db?: Db): Promise<Map<string, string>> {
    return new Map((await this.contactsOf([...new Set(ids)], db)).map((u) => [u.id, u.name]));
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

  /**
   * Creates an account someone asked for (sign-up, a first OAuth sign-in), under the `signUp`
   * policy. Even the first account of an empty instance obeys it: a closed or invite-only
   * instance gets its admin from ADMIN_EMAIL or create-admin, never from whoever comes first.
   */
  signUp(input: NewUser, trx?: Db): Promise<UserRow> {
    return this.create(input, trx, async (t) => {
      if (this.policy === 'closed') throw AuthErrors.sign_up_closed();
      // A registered address goes on to 409 email_taken, as on an open instance, so a 403 here never means "has an account".
      if (this.policy === 'invite_only' && !(await this.findByEmail(input.email, t))) {
        const invited = await this.hooks.invited.promise({ email: input.email.trim(), trx: t });
        if (invited !== true) throw AuthErrors.sign_up_invite_only();
      }
    });
  }

  /**
   * Creates a user, whatever the sign-up policy; the first user of an instance becomes its instance admin.
   * `allowed` runs under the creation lock, before anything is written.
   */
  async create(input: NewUser, trx?: Db, allowed?: (trx: Trx) => Promise<void>): Promise<UserRow> {
    // Hashed before the lock: argon2 is slow on purpose, and the lock serialises every sign-up of the instance.
    const passwordHash = input.password === undefined ? null : await this.passwords.hash(input.password);
    return this.withCreationLock(async (t) => {
      await allowed?.(t);
      if (await this.findByEmail(input.email, t)) throw AuthErrors.email_taken();
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

  /**
   * Start-up's ADMIN_EMAIL: creates that instance admin unless an account has the address. An
   * existing account is not promoted: whoever registered the address first is not trusted by it.
   */
  async bootstrapAdmin(input: { email: string; password: string }): Promise<{ user: UserRow; created: boolean }> {
    return this.withCreationLock(async (trx) => {
      const existing = await this.findByEmail(input.email, trx);
      if (existing) return { user: existing, created: false };
      const user = await this.create({ email: input.email, password: input.password, name: input.email.split('@')[0], instanceAdmin: true }, trx);
      return { user, created: true };
    });
  }

  /** Whether any account exists: an empty instance gives instance admin to its first sign-up. */
  async isEmpty(): Promise<boolean> {
    return !(await this.db('users').first('id'));
  }

  /** Stores the argon2 hash of `password`, hashed exactly as sign-up does; `null` leaves the account without a usable password. */
  async setPassword(id: string, password: string | null, trx: Db = this.db): Promise<void> {
    const passwordHash = password === null ? null : await this.passwords.hash(password);
    await trx('users').where({ id }).update({ password_hash: passwordHash, updated_at: trx.fn.now() });
  }

  /** Whether `password` is this user's (false for an account without a password). */
  async checkPassword(user: Pick<UserRow, 'password_hash'>, password: string): Promise<boolean> {
    return this.passwords.matches(user.password_hash, password);
  }

  /** The user if the password matches and the account is active. */
  async verifyCredentials(email: string, password: string): Promise<UserRow | null> {
    const user = await this.findByEmail(email);
    const ok = await this.passwords.matches(user?.password_hash, password);
    return user && ok && !user.disabled_at ? user : null;
  }

  /** Every account, newest first: `q` a case-insensitive substring of the email or the name, `disabled` only (not) disabled ones. */
  async listAccounts(filter: { q?: string; disabled?: boolean }, page: { limit?: number; cursor?: string }): Promise<Page<AccountRow>> {
    const q = this.db('users as u').select(ACCOUNT_COLUMNS);
    if (filter.q) {
      const pattern = containsPattern(filter.q);
      q.where((w) => w.whereILike('u.email', pattern).orWhereILike('u.name', pattern));
    }
    if (filter.disabled === true) q.whereNotNull('u.disabled_at');
    if (filter.disabled === false) q.whereNull('u.disabled_at');
    return keysetPage<AccountRow>(this.db, q, { keys: [{ column: 'u.created_at', type: 'timestamptz' }, { column: 'u.id', type: 'uuid' }], direction: 'desc' }, page);
  }

  /**
   * Marks the accounts with these addresses (any case): a complaint always; a bounce unless the address is already
   * `complained` (the stronger of the two stays). Answers how many accounts changed.
   */
  async markEmails(addresses: string[], status: Exclude<EmailStatus, 'ok'>, db: Db = this.db): Promise<number> {
    const lower = [...new Set(addresses.map((a) => a.trim().toLowerCase()).filter(Boolean))];
    if (lower.length === 0) return 0;
    const q = db('users').whereRaw('lower(email) = ANY(?::text[])', [lower]).whereNot({ email_status: status });
    if (status === 'bouncing') q.whereNot({ email_status: 'complained' });
    return q.update({ email_status: status, email_status_at: db.fn.now() });
  }

  /** Of these users, those whose address does not take mail that can wait (`bouncing`, `complained`). */
  async undeliverable(ids: string[], db: Db = this.db): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    return new Set(await db('users').whereIn('id', ids).whereNot({ email_status: 'ok' }).pluck('id'));
  }

  async findAccount(id: string, db: Db = this.db): Promise<AccountRow | undefined> {
    return db('users as u').where('u.id', id).first(ACCOUNT_COLUMNS);
  }

  /** How many accounts there are, how many are disabled, and how many enabled instance admins. */
  async counts(): Promise<{ total: number; disabled: number; instance_admins: number }> {
    return this.db('users').first(
      this.db.raw('count(*)::int AS total'),
      this.db.raw('(count(*) FILTER (WHERE disabled_at IS NOT NULL))::int AS disabled'),
      this.db.raw('(count(*) FILTER (WHERE is_instance_admin AND disabled_at IS NULL))::int AS instance_admins'),
    );
  }

  /** The enabled instance admins, their rows locked in a fixed order until `trx` ends: two admins changing each other at once cannot both succeed. */
  async lockEnabledAdmins(trx: Trx): Promise<string[]> {
    return trx('users').where({ is_instance_admin: true }).whereNull('disabled_at').orderBy('id').forNoKeyUpdate().pluck('id');
  }

  /** The account, its row locked (FOR NO KEY UPDATE) until `trx` ends for a change. */
  async lockAccount(trx: Trx, id: string): Promise<Pick<UserRow, 'id' | 'is_instance_admin' | 'disabled_at'> | undefined> {
    return trx('users').where({ id }).forNoKeyUpdate().first('id', 'is_instance_admin', 'disabled_at');
  }

  /** Applies an administrator's change; what the instance allows (a last admin, oneself) is the caller's to check. */
  async updateAccount(trx: Trx, id: string, change: AccountChange): Promise<void> {
    const patch: Record<string, unknown> = { updated_at: trx.fn.now() };
    if (change.name !== undefined) patch.name = change.name.trim();
    if (change.is_instance_admin !== undefined) patch.is_instance_admin = change.is_instance_admin;
    if (change.disabled !== undefined) patch.disabled_at = change.disabled ? trx.fn.now() : null;
    await trx('users').where({ id }).update(patch);
  }

  /** Records where the user's avatar blob is (`null`: no avatar); the blob itself is the users plugin's. */
  async setAvatarKey(id: string, key: string | null): Promise<void> {
    await this.db('users')
      .where({ id })
      .update({ avatar_key: key, avatar_updated_at: key === null ? null : this.db.fn.now(), updated_at: this.db.fn.now() });
  }

  async update(id: string, patch: { name?: string }): Promise<UserRow> {
    const [row] = await this.db<UserRow>('users')
      .where({ id })
      .update({ ...(patch.name !== undefined ? { name: patch.name.trim() } : {}), updated_at: this.db.fn.now() })
      .returning('*');
    return row;
  }
}
