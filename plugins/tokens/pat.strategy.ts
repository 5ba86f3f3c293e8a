import type { CacheSignals, LocalCache } from '../../core/cache.ts';
import type { Database } from '../../core/db.ts';
import { PRINCIPAL_USER_COLUMNS, principalUserOf, type Principal, type PrincipalUserRow, type TokenScope } from '../../core/principal.ts';
import { hasValidChecksum, hashSecret } from '../../core/secrets.ts';
import type { LastUsedRecorder } from './last-used.ts';
import { joinEnabledUser } from '../auth/public.ts';

export const PAT_PREFIX = 'tpat_';

/** Constant text (built once, the user join auth's), one parameter: prepared once per connection, then only bound and executed. */
const LOOKUP = `
  SELECT t.id, t.workspace_id, t.scope, t.allow_run_button, t.last_used_at, t.expires_at, ${PRINCIPAL_USER_COLUMNS}
    FROM personal_access_tokens t
    ${joinEnabledUser('t.user_id')}
   WHERE t.token_hash = $1
     AND (t.expires_at IS NULL OR t.expires_at > now())`;

interface LookupRow extends PrincipalUserRow {
  id: string;
  workspace_id: string;
  scope: TokenScope;
  allow_run_button: boolean;
  last_used_at: Date | null;
  expires_at: Date | null;
}

/**
 * The `auth.authenticate` strategy for personal access tokens. A token found is kept in the
 * process cache until its row or its user changes (the `tokens` and `users` signals of the
 * kernel's triggers), so a revocation or a disabled user takes effect at once without a
 * query per request; expiry is checked on every use.
 */
export class PatStrategy {
  private readonly lookup: (values: unknown[]) => Promise<LookupRow[]>;
  private readonly cache: LocalCache<LookupRow | undefined>;

  constructor(database: Database, caches: CacheSignals, private readonly lastUsed: LastUsedRecorder) {
    this.lookup = database.prepared<LookupRow>('tokens.pat_lookup', LOOKUP);
    this.cache = caches.create('tokens.pats', { topics: { tokens: 'group', users: 'all' } });
  }

  async authenticate(token: string): Promise<Principal | undefined> {
    if (!token.startsWith(PAT_PREFIX)) return undefined;
    // A mistyped or made-up token is refused without a database round trip.
    if (!hasValidChecksum(token, PAT_PREFIX)) return undefined;
    const hash = hashSecret(token);
    const row = await this.cache.get(hash, '', async () => (await this.lookup([hash]))[0]);
    if (!row || (row.expires_at && row.expires_at.getTime() <= Date.now())) return undefined;
    this.lastUsed.touch(row.id, row.last_used_at);
    return {
      kind: 'pat',
      user: principalUserOf(row),
      tokenId: row.id,
      workspaceId: row.workspace_id,
      scope: row.scope,
      allowRunButton: row.allow_run_button,
    };
  }
}
