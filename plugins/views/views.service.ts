import { inTransaction, type Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { invalidField, notFound, validationFailed, type ErrorDetail } from '../../core/errors.ts';
import { ViewErrors } from './errors.ts';
import type { TableCatalog, ViewIndexService } from '../databases/public.ts';
import type { LinkedTables, QueryService, RecordService, RecordTable } from '../records/public.ts';
import type { CreateViewBody, PatchViewBody, View, ViewType } from './schemas.ts';
import { checkSettings, toSettings, toStored, withDefaults, type StoredConfig, type ViewSettings } from './view-config.ts';
import { selectViews, toView, type ViewRow } from './view-rows.ts';

/** Whether two stored configs differ in what record queries and view indexes read. */
const queryChanged = (a: StoredConfig, b: StoredConfig) =>
  JSON.stringify([a.filter ?? null, a.sorts ?? []]) !== JSON.stringify([b.filter ?? null, b.sorts ?? []]);

/**
 * Saved views of a database. Every change holds all the database's views (FOR UPDATE), so "one
 * default" and "never the last one" hold under concurrent edits; a change to a view's filter or
 * sorts queues the sync of the database's view indexes in the same transaction.
 */
export class ViewService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly records: RecordService,
    private readonly indexes: ViewIndexService,
    private readonly query: QueryService,
    private readonly catalog: TableCatalog,
  ) {}

  async list(workspaceId: string, databaseId: string): Promise<{ data: View[] }> {
    const table = await this.records.readTable(workspaceId, databaseId);
    const rows = (await selectViews(this.db, databaseId).orderBy(['v.position', 'v.created_at'])) as ViewRow[];
    return { data: rows.map((row) => toView(row, table)) };
  }

  async get(workspaceId: string, databaseId: string, id: string): Promise<View> {
    const table = await this.records.readTable(workspaceId, databaseId);
    return toView(await this.find(this.db, databaseId, id), table);
  }

  /**
   * `inTrx`: a view made inside a larger transaction (a pack install), which may have made the database too: every
   * read goes through it (on PGlite it holds the only connection).
   */
  async create(principal: UserPrincipal, workspaceId: string, databaseId: string, body: CreateViewBody, inTrx?: Db): Promise<View> {
    const table = await this.tableFor(principal, workspaceId, databaseId, inTrx);
    const settings = withDefaults(table, body.type, {
      filter: body.filter ?? null,
      sorts: body.sorts ?? [],
      hidden_fields: body.hidden_fields ?? [],
      field_order: body.field_order ?? [],
      group_by: body.group_by ?? null,
      options: body.options ?? {},
    });
    check(principal, table, body.type, settings, await this.query.linkedTables(principal, table, inTrx));
    const config = toStored(table, settings);
    const id = await inTransaction(this.db, async (trx) => {
      const views = await this.holdViews(trx, databaseId);
      const isDefault = body.is_default === true || views.length === 0;
      if (isDefault) await trx('database_views').where({ database_id: databaseId, is_default: true }).update({ is_default: false, updated_at: trx.fn.now() });
      const [row] = (await trx('database_views')
        .insert({
          workspace_id: workspaceId,
          database_id: databaseId,
          name: body.name.trim(),
          type: body.type,
          is_default: isDefault,
          config: JSON.stringify(config),
          position: Math.max(-1, ...views.map((v) => v.position)) + 1,
          created_by: principal.user.id,
        })
        .returning('id')) as Array<{ id: string }>;
      if (queryChanged({}, config)) await this.indexes.schedule(trx, databaseId);
      const view = toView(await this.find(trx, databaseId, row.id), table);
      await this.events.emit(trx, { name: 'view.created', workspaceId, actorId: principal.user.id, payload: { database_id: databaseId, view } });
      return row.id;
    }, inTrx);
    return inTrx ? toView(await this.find(inTrx, databaseId, id), table) : this.get(workspaceId, databaseId, id);
  }

  async update(principal: UserPrincipal, workspaceId: string, databaseId: string, id: string, body: PatchViewBody, inTrx?: Db): Promise<View> {
    const table = await this.tableFor(principal, workspaceId, databaseId, inTrx);
    if (body.is_default === false) {
      throw invalidField('/is_default', 'A database always has one default view: make another view the default instead.');
    }
    // Read before the transaction: on PGlite the transaction holds the only connection.
    const linked = await this.query.linkedTables(principal, table, inTrx);
    return inTransaction(this.db, async (trx) => {
      await this.holdViews(trx, databaseId);
      const before = await this.find(trx, databaseId, id);
      const current = toSettings(table, before.config ?? {});
      const settings: ViewSettings = {
        filter: body.filter !== undefined ? body.filter : current.filter,
        sorts: body.sorts ?? current.sorts,
        hidden_fields: body.hidden_fields ?? current.hidden_fields,
        field_order: body.field_order ?? current.field_order,
        group_by: body.group_by !== undefined ? body.group_by : current.group_by,
        options: body.options ?? current.options,
      };
      check(principal, table, before.type, settings, linked, body);
      const config = toStored(table, settings);
      const patch: Record<string, unknown> = { config: JSON.stringify(config), updated_at: trx.fn.now() };
      if (body.name !== undefined) patch.name = body.name.trim();
      if (body.is_default === true && !before.is_default) {
        await trx('database_views').where({ database_id: databaseId, is_default: true }).update({ is_default: false, updated_at: trx.fn.now() });
        patch.is_default = true;
      }
      await trx('database_views').where({ id }).update(patch);
      if (queryChanged(before.config ?? {}, config)) await this.indexes.schedule(trx, databaseId);
      const view = toView(await this.find(trx, databaseId, id), table);
      await this.events.emit(trx, { name: 'view.updated', workspaceId, actorId: principal.user.id, payload: { database_id: databaseId, before: toView(before, table), after: view } });
      return view;
    }, inTrx);
  }

  /** 409 for a database's last view; deleting the default makes the first remaining view the default. */
  async delete(principal: UserPrincipal, workspaceId: string, databaseId: string, id: string): Promise<void> {
    const table = await this.records.readTable(workspaceId, databaseId);
    await inTransaction(this.db, async (trx) => {
      const views = await this.holdViews(trx, databaseId);
      const row = await this.find(trx, databaseId, id);
      if (views.length === 1) throw ViewErrors.last_view();
      await trx('database_views').where({ id }).delete();
      if (row.is_default) {
        const next = views.filter((v) => v.id !== id).sort((a, b) => a.position - b.position || a.created_at.getTime() - b.created_at.getTime())[0];
        await trx('database_views').where({ id: next.id }).update({ is_default: true, updated_at: trx.fn.now() });
      }
      if (queryChanged(row.config ?? {}, {})) await this.indexes.schedule(trx, databaseId);
      await this.events.emit(trx, { name: 'view.deleted', workspaceId, actorId: principal.user.id, payload: { database_id: databaseId, view: toView(row, table) } });
    });
  }

  private async tableFor(principal: UserPrincipal, workspaceId: string, databaseId: string, trx?: Db): Promise<RecordTable> {
    return this.records.seenBy(principal, trx ? await this.records.open(trx, workspaceId, databaseId) : await this.records.readTable(workspaceId, databaseId), trx);
  }

  async find(db: Db, databaseId: string, id: string): Promise<ViewRow> {
    const row = (await selectViews(db, databaseId).where('v.id', id).first()) as ViewRow | undefined;
    if (!row) throw notFound('No such view in this database.');
    return row;
  }

  /** Locks the database against deletion and every one of its views against concurrent view changes. */
  private async holdViews(trx: Db, databaseId: string): Promise<Array<Pick<ViewRow, 'id' | 'position' | 'created_at' | 'is_default'>>> {
    const database = await this.catalog.keep(trx, databaseId, 'key');
    if (!database) throw notFound();
    return trx('database_views').where({ database_id: databaseId }).forUpdate().select('id', 'position', 'created_at', 'is_default');
  }
}

/** PATCH reports only the settings it was sent: a stale setting it did not touch is not its fault. */
function check(principal: UserPrincipal, table: RecordTable, type: ViewType, settings: ViewSettings, linked: LinkedTables, sent?: PatchViewBody): void {
  const errors: ErrorDetail[] = [];
  checkSettings(table, type, settings, principal.user.id, errors, linked);
  const reported = sent ? errors.filter((e) => (Object.keys(sent) as string[]).some((key) => e.pointer === `/${key}` || e.pointer.startsWith(`/${key}/`))) : errors;
  if (reported.length > 0) throw validationFailed(reported);
}
