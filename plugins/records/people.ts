import type { CacheSignals, LocalCache } from '../../core/cache.ts';
import type { Database, Db } from '../../core/db.ts';
import type { OutputContext } from '../databases/public.ts';

const NAMES = 'SELECT id, name FROM users WHERE id = ANY($1::uuid[])';
const MEMBERS = 'SELECT user_id FROM workspace_members WHERE workspace_id = $1 AND user_id = ANY($2::uuid[]) FOR SHARE';

/**
 * Which of some users are members of a workspace, their rows held FOR SHARE: a removal (which
 * also forgets their watches) waits for the write that named them. One prepared statement.
 */
export class MemberCheck {
  private readonly lookup: (values: unknown[], trx?: Db) => Promise<Array<{ user_id: string }>>;

  constructor(storage: Database) {
    this.lookup = storage.prepared('records.members_among', MEMBERS);
  }

  async among(trx: Db, workspaceId: string, userIds: string[]): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    return new Set((await this.lookup([workspaceId, userIds], trx)).map((r) => r.user_id));
  }
}

/**
 * Names of the users records show (creator, last editor, user cells), from the process cache:
 * a page shows a handful of people many times, and asking PostgreSQL per row cost more than
 * the rest of the page. A renamed user's entry goes with the kernel's `users` signal.
 */
export class UserNames {
  private readonly lookup: (values: unknown[], trx?: Db) => Promise<Array<{ id: string; name: string }>>;
  private readonly cache: LocalCache<string>;

  constructor(storage: Database, caches: CacheSignals) {
    this.lookup = storage.prepared('records.user_names', NAMES);
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
      const found = await this.cache.loadMany(() => this.lookup([missing], db), (row) => [row.id, '', row.name]);
      for (const { id, name } of found) users.set(id, { id, name });
    }
    return { users };
  }
}
