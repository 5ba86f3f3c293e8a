import { inTransaction, type Database as Storage, type Db } from '../../core/db.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { validationFailed, type ErrorDetail } from '../../core/errors.ts';
import { compileFilter, sortKeys, type QueryService, type QueryView, type RecordService, type SortInput, type ViewLookup } from '../records/public.ts';
import type { Override, PutOverrideBody } from './schemas.ts';
import { fieldRef, forQuery, refId, refName, renameFilterFields, type StoredConfig } from './view-config.ts';
import type { ViewService } from './views.service.ts';

interface OverrideRow {
  filter: unknown;
  sorts: SortInput[] | null;
  updated_at: Date;
}

/** A view and the caller's override in one statement: every query through a view asks for both. */
const VIEW_FOR_QUERY = `SELECT v.config, o.filter AS override_filter, o.sorts AS override_sorts
  FROM database_views v LEFT JOIN view_overrides o ON o.view_id = v.id AND o.user_id = $3
 WHERE v.id = $1 AND v.database_id = $2`;

/**
 * Each user's own filter and sorts over a shared view: stored per (view, user), fields by id like
 * the view's, applied only to that user's queries through the view.
 */
export class OverrideService {
  private readonly viewForQuery: (values: unknown[], trx?: Db) => Promise<Array<{ config: StoredConfig; override_filter: unknown; override_sorts: SortInput[] | null }>>;

  constructor(
    private readonly db: Db,
    private readonly records: RecordService,
    private readonly views: ViewService,
    private readonly query: QueryService,
    storage: Storage,
  ) {
    this.viewForQuery = storage.prepared('views.for_query', VIEW_FOR_QUERY);
  }

  async get(principal: UserPrincipal, workspaceId: string, databaseId: string, viewId: string): Promise<Override> {
    const table = await this.records.readTable(workspaceId, databaseId);
    await this.views.find(this.db, databaseId, viewId);
    const row = (await this.db('view_overrides').where({ view_id: viewId, user_id: principal.user.id }).first('filter', 'sorts', 'updated_at')) as OverrideRow | undefined;
    const name = (ref: string) => fieldRef(table, ref)?.api_name ?? ref;
    return {
      view_id: viewId,
      filter: row?.filter == null ? null : (renameFilterFields(row.filter, (ref) => refName(table, ref) ?? ref) as Override['filter']),
      sorts: row?.sorts == null ? null : row.sorts.map((s) => ({ ...s, field: name(s.field) })),
      updated_at: row ? row.updated_at.toISOString() : null,
    };
  }

  async put(principal: UserPrincipal, workspaceId: string, databaseId: string, viewId: string, body: PutOverrideBody): Promise<Override> {
    const table = await this.records.seenBy(principal, await this.records.readTable(workspaceId, databaseId));
    const errors: ErrorDetail[] = [];
    const filter = body.filter ?? null;
    const sorts = body.sorts ?? null;
    if (filter !== null) compileFilter(table, filter, { userId: principal.user.id, now: new Date() }, '/filter', errors, await this.query.linkedTables(principal, table));
    if (sorts !== null) sortKeys(table, sorts, '/sorts', errors);
    if (errors.length > 0) throw validationFailed(errors);
    const id = (ref: string) => fieldRef(table, ref)?.id ?? ref;
    await inTransaction(this.db, async (trx) => {
      await this.views.find(trx, databaseId, viewId);
      await trx('view_overrides')
        .insert({
          view_id: viewId,
          user_id: principal.user.id,
          workspace_id: workspaceId,
          filter: filter === null ? null : JSON.stringify(renameFilterFields(filter, (ref) => refId(table, ref))),
          sorts: sorts === null ? null : JSON.stringify(sorts.map((s) => ({ ...s, field: id(s.field) }))),
        })
        .onConflict(['view_id', 'user_id'])
        .merge(['filter', 'sorts', 'updated_at']);
    });
    return this.get(principal, workspaceId, databaseId, viewId);
  }

  async delete(principal: UserPrincipal, workspaceId: string, databaseId: string, viewId: string): Promise<void> {
    await this.records.readTable(workspaceId, databaseId);
    await this.views.find(this.db, databaseId, viewId);
    await this.db('view_overrides').where({ view_id: viewId, user_id: principal.user.id }).delete();
  }

  /** The `records.views` answer: undefined when the view is not one of the database's. */
  async forQuery(lookup: ViewLookup): Promise<QueryView | undefined> {
    const [row] = await this.viewForQuery([lookup.viewId, lookup.databaseId, lookup.userId]);
    if (!row) return undefined;
    const table = await this.records.readTable(lookup.workspaceId, lookup.databaseId);
    const override = row.override_filter == null && row.override_sorts == null ? undefined : { filter: row.override_filter, sorts: row.override_sorts };
    return forQuery(table, row.config ?? {}, override);
  }

  /** A member who leaves takes their overrides in that workspace along. */
  async forgetMember(trx: Db, workspaceId: string, userId: string): Promise<void> {
    await trx('view_overrides').where({ workspace_id: workspaceId, user_id: userId }).delete();
  }
}
