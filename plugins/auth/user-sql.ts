/**
 * SQL on the users table for statements other plugins run on their hot paths, where asking `auth.users` would
 * add a round trip: the fragment is auth's, so the table and its columns stay named in this plugin only.
 */

/** Joins, as `u`, the account `userIdColumn` names while it is enabled: `PRINCIPAL_USER_COLUMNS` (core) read from it. */
export function joinEnabledUser(userIdColumn: string): string {
  return `JOIN users u ON u.id = ${userIdColumn} AND u.disabled_at IS NULL`;
}

/** The name of the account `userIdColumn` names, as a sort key: case-insensitive, bytewise; null when there is none. */
export function userNameSortKey(userIdColumn: string): string {
  return `(SELECT lower(u.name) COLLATE "C" FROM users u WHERE u.id = ${userIdColumn})`;
}
