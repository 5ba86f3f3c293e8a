import type { CacheSignals, LocalCache } from '../../core/cache.ts';
import type { Db } from '../../core/db.ts';
import type { UserService } from '../auth/public.ts';
import type { OutputContext } from '../databases/public.ts';

/**
 * Names of the users records show (creator, last editor, user cells), from the process cache:
 * a page shows a handful of people many times, and asking PostgreSQL per row cost more than
 * the rest of the page. The ones not cached are asked of `auth.users` in one prepared statement.
 * A renamed user's entry goes with the kernel's `users` signal.
 */
export class UserNames {
  private readonly cache: LocalCache<string>;

  constructor(private readonly users: UserService, caches: CacheSignals) {
    this.cache = caches.create('records.user_names', { topics: { users: 'group' }, maxGroups: 50_000 });
  }

  /** `db` is the caller's transaction, if any (PGlite has one connection). */
  async context(userIds: Set<string>, db?: Db): Promise<OutputContext> {
    const users = new Map<string, { id: string; name: string }>();
    const missing: string[] = [];
    for (const id of userIds) {
      const name = this.cache.peek(id, '');
      if (name === undefined) missing.push(id);
      else users.set(id, { id, name });
    }
    if (missing.length > 0) {
      const found = await this.cache.loadMany(() => this.users.contactsOf(missing, db), (row) => [row.id, '', row.name]);
      for (const { id, name } of found) users.set(id, { id, name });
    }
    return { users };
  }
}
