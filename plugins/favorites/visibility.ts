import type { Authz, WorkspaceAccess } from '../../core/authz.ts';
import type { Db } from '../../core/db.ts';
import type { Principal } from '../../core/principal.ts';

/**
 * The databases among `rows` the caller can see, asked as the records routes ask it: where
 * `auth.locate` puts the database, then the caller's role there (a guest's spaces, grants, a
 * token's scope). Outside a transaction the locations come from the locator's process cache.
 */
export async function visibleAmong<T extends { id: string }>(authz: Authz, principal: Principal, access: WorkspaceAccess, rows: T[], trx?: Db): Promise<T[]> {
  const seen = await Promise.all(rows.map((row) => authz.seesResource(principal, access, 'database', row.id, trx)));
  return rows.filter((_, i) => seen[i]);
}
