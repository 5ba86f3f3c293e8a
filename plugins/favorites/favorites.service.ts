import type { Authz, WorkspaceAccess } from '../../core/authz.ts';
import { inTransaction, type Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import { notFound } from '../../core/errors.ts';
import type { Page } from '../../core/pagination.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { TableCatalog } from '../databases/public.ts';
import type { RecordService } from '../records/public.ts';
import type { FavoriteReader, StoredFavorite } from './favorite-reader.ts';
import { databaseHolding } from './record-lookup.ts';
import type { Favorite, FavoriteQuery, PutFavoriteBody } from './schemas.ts';

const TABLE = 'favorites';
const STORED = ['id', 'workspace_id', 'target_type', 'target_id', 'database_id', 'created_at'];
const NO_TARGET = 'No such record or database in this workspace.';
const NO_FAVORITE = 'No such favorite.';

/**
 * Each user's own stars on records and databases of a workspace: one per (user, target). A
 * favorite goes with its database, user or workspace (cascades), with the member when they leave,
 * and with its record once purged from the trash; while its target is in the trash or hidden from
 * its owner, it is kept but not shown.
 */
export class FavoriteService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly authz: Authz,
    private readonly records: RecordService,
    private readonly reader: FavoriteReader,
    private readonly catalog: TableCatalog,
  ) {}

  list(principal: UserPrincipal, access: WorkspaceAccess, query: FavoriteQuery): Promise<Page<Favorite>> {
    return this.reader.page(principal, access, { workspaceId: access.workspaceId, userId: principal.user.id, targetType: query.target_type }, query);
  }

  async get(principal: UserPrincipal, access: WorkspaceAccess, id: string): Promise<Favorite> {
    const favorite = await this.reader.one(principal, access, { workspaceId: access.workspaceId, userId: principal.user.id, id });
    if (!favorite) throw notFound(NO_FAVORITE);
    return favorite;
  }

  /** Stars a live target the caller can see; `created` is false when it was already starred (nothing changes). */
  async put(principal: UserPrincipal, access: WorkspaceAccess, body: PutFavoriteBody): Promise<{ favorite: Favorite; created: boolean }> {
    const workspaceId = access.workspaceId;
    const userId = principal.user.id;
    const databaseId = body.target_type === 'database' ? body.target_id : await this.databaseOfRecord(principal, access, body.target_id);
    if (!databaseId) throw notFound(NO_TARGET);
    return inTransaction(this.db, async (trx) => {
      // Holds the workspace and the database rows: deleting either waits for this favorite, then takes it along.
      await this.records.open(trx, workspaceId, databaseId);
      // The membership row, held FOR SHARE: a removal (which forgets the member's favorites) waits too.
      if (!(await this.records.members.holdAmong(trx, workspaceId, [userId])).has(userId)) throw notFound();
      const key = { user_id: userId, target_type: body.target_type, target_id: body.target_id };
      const inserted: StoredFavorite[] = await trx(TABLE)
        .insert({ ...key, workspace_id: workspaceId, database_id: databaseId })
        .onConflict(['user_id', 'target_type', 'target_id'])
        .ignore()
        .returning(STORED);
      const id: string = inserted[0]?.id ?? (await trx(TABLE).where(key).first('id')).id;
      // As the list shows it: a target gone or hidden by now is a 404, and the insert rolls back.
      const favorite = await this.reader.one(principal, access, { workspaceId, userId, id }, trx);
      if (!favorite) throw notFound(NO_TARGET);
      if (inserted.length > 0) await this.events.emit(trx, { name: 'favorite.added', workspaceId, actorId: userId, payload: { favorite: toEvent(inserted[0]) } });
      return { favorite, created: inserted.length > 0 };
    });
  }

  /** Unstars one of the caller's favorites, whether or not its target is still live or visible. */
  async remove(principal: UserPrincipal, workspaceId: string, id: string): Promise<void> {
    const userId = principal.user.id;
    await inTransaction(this.db, async (trx) => {
      const [row] = (await trx(TABLE).where({ id, workspace_id: workspaceId, user_id: userId }).delete().returning(STORED)) as StoredFavorite[];
      if (!row) throw notFound(NO_FAVORITE);
      await this.events.emit(trx, { name: 'favorite.removed', workspaceId, actorId: userId, payload: { favorite: toEvent(row) } });
    });
  }

  /** Forgets every favorite of a member leaving the workspace. */
  async forgetMember(trx: Db, workspaceId: string, userId: string): Promise<void> {
    await trx(TABLE).where({ workspace_id: workspaceId, user_id: userId }).delete();
  }

  /** Favorites of records purged for good (the records plugin's `purged` stage, in its transaction). */
  async forgetRecords(trx: Db, databaseId: string, recordIds: string[]): Promise<void> {
    await trx(TABLE).where({ database_id: databaseId, target_type: 'record' }).whereIn('target_id', recordIds).delete();
  }

  /** The database holding a live record, among the workspace's databases the caller can see. */
  private async databaseOfRecord(principal: UserPrincipal, access: WorkspaceAccess, recordId: string): Promise<string | undefined> {
    const databases = await this.catalog.tables(this.db, access.workspaceId);
    return databaseHolding(this.db, recordId, await this.authz.visible(principal, access, 'database', databases));
  }
}

function toEvent(row: StoredFavorite) {
  return { ...row, created_at: row.created_at.toISOString() };
}
