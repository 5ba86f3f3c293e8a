import type { Authz } from '../../core/authz.ts';
import { inTransaction, type Db } from '../../core/db.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { notFound } from '../../core/errors.ts';
import type { UserService } from '../auth/public.ts';
import type { RecordService } from './records.service.ts';
import type { Watcher } from './watchers.schemas.ts';

const TABLE = 'record_watchers';
const ORDER = { keys: [{ column: 'created_at', type: 'timestamptz' as const }, { column: 'user_id', type: 'uuid' as const }], direction: 'asc' as const };
const NO_RECORD = 'No such record in this database.';

interface WatcherRow {
  user_id: string;
  created_at: Date;
}

/**
 * Who watches a record: each user's own subscription, started and ended by that user. Rows go
 * with the record when it is purged from the trash, with the member when they leave, and with
 * the member's sight of the database when their spaces or grants change.
 */
export class WatcherService {
  constructor(
    private readonly db: Db,
    private readonly records: RecordService,
    private readonly authz: Authz,
    private readonly users: UserService,
  ) {}

  /** Starts watching a live record; `created` is false when the caller already watched it (nothing changes). */
  async watch(principal: UserPrincipal, workspaceId: string, databaseId: string, id: string): Promise<{ watcher: Watcher; created: boolean }> {
    const userId = principal.user.id;
    return inTransaction(this.db, async (trx) => {
      const table = await this.records.open(trx, workspaceId, databaseId);
      if (!(await table.find(trx, id))) throw notFound(NO_RECORD);
      // The membership row, held FOR SHARE: a removal (which forgets the member's watches) waits for this insert.
      if (!(await this.records.members.holdAmong(trx, workspaceId, [userId])).has(userId)) throw notFound();
      const inserted = await trx(TABLE)
        .insert({ workspace_id: workspaceId, database_id: databaseId, record_id: id, user_id: userId })
        .onConflict(['database_id', 'record_id', 'user_id'])
        .ignore()
        .returning('user_id');
      const row = (await this.watchers(trx, databaseId, id).where('user_id', userId).first()) as WatcherRow;
      const [watcher] = await this.named([row], trx);
      return { watcher, created: inserted.length > 0 };
    });
  }

  /** Stops watching a live record; not watching it is no error. */
  async unwatch(principal: UserPrincipal, workspaceId: string, databaseId: string, id: string): Promise<void> {
    await this.requireLive(workspaceId, databaseId, id);
    await this.db(TABLE).where({ database_id: databaseId, record_id: id, user_id: principal.user.id }).delete();
  }

  /** The watchers of a live record, longest-watching first, keyset paged. */
  async list(workspaceId: string, databaseId: string, id: string, page: { limit?: number; cursor?: string }): Promise<Page<Watcher>> {
    await this.requireLive(workspaceId, databaseId, id);
    const rows = await keysetPage<WatcherRow>(this.db, this.watchers(this.db, databaseId, id), ORDER, page);
    return { data: await this.named(rows.data), next_cursor: rows.next_cursor };
  }

  /** Who watches each of `recordIds` (record id → user ids), read in `db` (a writer's transaction, for notifications). */
  async watchersOf(db: Db, databaseId: string, recordIds: string[]): Promise<Map<string, string[]>> {
    const found = new Map<string, string[]>();
    if (recordIds.length === 0) return found;
    const rows: Array<{ record_id: string; user_id: string }> = await db(TABLE).where({ database_id: databaseId }).whereIn('record_id', recordIds).select('record_id', 'user_id');
    for (const row of rows) found.set(row.record_id, [...(found.get(row.record_id) ?? []), row.user_id]);
    return found;
  }

  /** Forgets the watchers of records gone for good (the trash purge). */
  async forgetRecords(trx: Db, databaseId: string, recordIds: string[]): Promise<void> {
    if (recordIds.length > 0) await trx(TABLE).where({ database_id: databaseId }).whereIn('record_id', recordIds).delete();
  }

  /** Forgets every watch of a member leaving the workspace. */
  async forgetMember(trx: Db, workspaceId: string, userId: string): Promise<void> {
    await trx(TABLE).where({ workspace_id: workspaceId, user_id: userId }).delete();
  }

  /**
   * Forgets a member's watches in the databases they can no longer see (a guest's spaces or a
   * grant changed), judged by their access as `trx` sees it.
   */
  async forgetUnseen(trx: Db, workspaceId: string, userId: string): Promise<void> {
    const watched: string[] = await trx(TABLE).where({ workspace_id: workspaceId, user_id: userId }).distinct().pluck('database_id');
    const unseen: string[] = [];
    for (const id of watched) {
      const location = await this.authz.locate('database', { workspaceId, id, trx });
      if (!location || !(await this.authz.userCanSee(userId, workspaceId, location.path, trx))) unseen.push(id);
    }
    if (unseen.length > 0) await trx(TABLE).where({ workspace_id: workspaceId, user_id: userId }).whereIn('database_id', unseen).delete();
  }

  private watchers(db: Db, databaseId: string, recordId: string) {
    return db(TABLE).where({ database_id: databaseId, record_id: recordId }).select('user_id', 'created_at');
  }

  /** Watchers with their names, asked of `auth.users` for the whole page in one statement. */
  private async named(rows: WatcherRow[], db?: Db): Promise<Watcher[]> {
    const names = await this.users.namesOf(rows.map((r) => r.user_id), db);
    return rows.flatMap((row) => {
      const name = names.get(row.user_id);
      return name === undefined ? [] : [toWatcher(row, name)];
    });
  }

  private async requireLive(workspaceId: string, databaseId: string, id: string): Promise<void> {
    const table = await this.records.readTable(workspaceId, databaseId);
    if (!(await table.find(this.db, id))) throw notFound(NO_RECORD);
  }
}

function toWatcher(row: WatcherRow, name: string): Watcher {
  return { user_id: row.user_id, name, watching_since: row.created_at.toISOString() };
}
