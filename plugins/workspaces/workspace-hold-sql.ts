/**
 * The workspace hold, as `workspaces.service.hold` takes it (FOR KEY SHARE: the workspace's deletion waits, a
 * rename does not), for a statement of another plugin that takes it with its own rows in one round trip: `join`
 * brings the workspace `workspaceIdColumn` names in as `w`, `lock` goes after the statement's own locking clause.
 */
export function workspaceHoldSql(workspaceIdColumn: string): { join: string; lock: string } {
  return { join: `JOIN workspaces w ON w.id = ${workspaceIdColumn}`, lock: 'FOR KEY SHARE OF w' };
}
