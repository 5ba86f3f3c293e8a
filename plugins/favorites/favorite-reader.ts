import type { Knex } from 'knex';
import type { Authz, WorkspaceAccess } from '../../core/authz.ts';
import type { Db } from '../../core/db.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { Principal } from '../../core/principal.ts';
import type { TableCatalog } from '../databases/public.ts';
import type { RecordService, RecordTable } from '../records/public.ts';
import type { Favorite, TargetType } from './schemas.ts';
import { plainTitle, titleColumn } from './titles.ts';

/** Whose favorites in which workspace, optionally one of them or one type of target. */
export interface FavoriteScope {
  workspaceId: string;
  userId: string;
  id?: string;
  targetType?: TargetType;
}

/** A favorite as stored: what was starred, by whom is the query's. */
export interface StoredFavorite {
  id: string;
  workspace_id: string;
  target_type: TargetType;
  target_id: string;
  database_id: string;
  created_at: Date;
}

interface FavoriteRow extends StoredFavorite {
  /** A record's title cell as text. */
  title: string | null;
}

interface ReferencedDatabase {
  id: string;
  name: string;
  has_records: boolean;
}

const NEWEST_FIRST = { keys: [{ column: 'f.created_at', type: 'timestamptz' as const }, { column: 'f.id', type: 'uuid' as const }], direction: 'desc' as const };

/**
 * Favorites as their owner sees them: only those whose target is live and visible to them now,
 * with titles. A page costs three statements whatever its size (the databases its favorites are
 * in, their names from `databases.catalog`, then the page itself); where each database sits and
 * its fields come from process caches (one query each on a miss).
 */
export class FavoriteReader {
  constructor(
    private readonly db: Db,
    private readonly authz: Authz,
    private readonly records: RecordService,
    private readonly catalog: TableCatalog,
  ) {}

  /** `trx`: read inside a writer's transaction (its tables held by `records.open`). */
  async page(principal: Principal, access: WorkspaceAccess, scope: FavoriteScope, page: { limit?: number; cursor?: string }, trx?: Db): Promise<Page<Favorite>> {
    const db = trx ?? this.db;
    const starred = (await this.own(db, scope)
      .groupBy('f.database_id')
      .select('f.database_id', db.raw("bool_or(f.target_type = 'record') AS has_records"))) as Array<{ database_id: string; has_records: boolean }>;
    const hasRecords = new Map(starred.map((s) => [s.database_id, s.has_records]));
    const referenced: ReferencedDatabase[] = (await this.catalog.names(db, [...hasRecords.keys()])).map((d) => ({ ...d, has_records: hasRecords.get(d.id)! }));
    const visible = await this.authz.visible(principal, access, 'database', referenced, trx);
    if (visible.length === 0) return { data: [], next_cursor: null };
    const tables = await Promise.all(
      visible.filter((d) => d.has_records).map((d) => (trx ? this.records.open(trx, scope.workspaceId, d.id) : this.records.readTable(scope.workspaceId, d.id))),
    );

    const query = this.own(db, scope).whereIn('f.database_id', visible.map((d) => d.id)).select('f.id', 'f.workspace_id', 'f.target_type', 'f.target_id', 'f.database_id', 'f.created_at');
    if (tables.length === 0) {
      query.where('f.target_type', 'database').select(db.raw('NULL::text AS title'));
    } else {
      const live = liveRecordOf(tables);
      query.joinRaw(`LEFT JOIN LATERAL (${live.sql}) AS r ON true`, live.bindings).where((w) => w.where('f.target_type', 'database').orWhereNotNull('r.id')).select('r.title');
    }
    const rows = await keysetPage<FavoriteRow>(db, query, NEWEST_FIRST, page);

    const names = new Map(visible.map((d) => [d.id, d.name]));
    const byDatabase = new Map(tables.map((t) => [t.databaseId, t]));
    const titleOf = (row: FavoriteRow) => (row.target_type === 'database' ? names.get(row.database_id)! : plainTitle(byDatabase.get(row.database_id)!, row.title));
    return { data: rows.data.map((row) => toFavorite(row, titleOf(row))), next_cursor: rows.next_cursor };
  }

  /** One favorite of the scope's user; undefined when it is not theirs, or its target is gone or hidden from them. */
  async one(principal: Principal, access: WorkspaceAccess, scope: FavoriteScope & { id: string }, trx?: Db): Promise<Favorite | undefined> {
    return (await this.page(principal, access, scope, { limit: 1 }, trx)).data[0];
  }

  private own(db: Db, scope: FavoriteScope): Knex.QueryBuilder {
    const query = db('favorites as f').where({ 'f.workspace_id': scope.workspaceId, 'f.user_id': scope.userId });
    if (scope.id) query.where('f.id', scope.id);
    if (scope.targetType) query.where('f.target_type', scope.targetType);
    return query;
  }
}

/**
 * The body of a LATERAL join answering, for favorite `f`, the id and title cell of its record
 * when that record is live. One branch per database; a branch's conditions on `f` alone are
 * checked once per favorite, so each favorite costs one primary-key probe in its own table.
 */
function liveRecordOf(tables: RecordTable[]): { sql: string; bindings: string[] } {
  const branches = tables.map((table) => {
    const column = titleColumn(table);
    return {
      sql: `SELECT t.id, ${column ? '??::text' : 'NULL::text'} AS title FROM ?? AS t
             WHERE f.target_type = 'record' AND f.database_id = ?::uuid AND t.id = f.target_id AND t.deleted_at IS NULL`,
      bindings: [...(column ? [`t.${column}`] : []), table.table, table.databaseId],
    };
  });
  return { sql: branches.map((b) => b.sql).join(' UNION ALL '), bindings: branches.flatMap((b) => b.bindings) };
}

function toFavorite(row: FavoriteRow, title: string | null): Favorite {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    target_type: row.target_type,
    target_id: row.target_id,
    database_id: row.database_id,
    title,
    created_at: row.created_at.toISOString(),
  };
}
