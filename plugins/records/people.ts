import type { Db } from '../../core/db.ts';
import type { OutputContext } from '../databases/field-types/field-type.ts';
import { USERS_COLUMN, type RecordRow } from './record-table.ts';

/** Which of `userIds` are members of the workspace (held FOR SHARE: a removal waits for the write). */
export async function membersAmong(trx: Db, workspaceId: string, userIds: string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await trx('workspace_members').where({ workspace_id: workspaceId }).whereIn('user_id', userIds).forShare().select('user_id');
  return new Set(rows.map((r: { user_id: string }) => r.user_id));
}

/** Names of the users a page shows, in one query. */
export async function outputContext(db: Db, userIds: Set<string>): Promise<OutputContext> {
  const users = new Map<string, { id: string; name: string }>();
  if (userIds.size > 0) {
    for (const row of (await db('users').whereIn('id', [...userIds]).select('id', 'name')) as Array<{ id: string; name: string }>) users.set(row.id, row);
  }
  return { users };
}

/** The names rows carry in USERS_COLUMN (RecordTable.usersColumn), which is removed from them. */
export function namesSelected(rows: RecordRow[]): OutputContext {
  const users = new Map<string, { id: string; name: string }>();
  for (const row of rows) {
    const names = row[USERS_COLUMN] as Record<string, string> | null;
    delete row[USERS_COLUMN];
    if (names) for (const [id, name] of Object.entries(names)) users.set(id, { id, name });
  }
  return { users };
}
