import { inTransaction, type Db, type Trx } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import { randomUUID } from 'node:crypto';
import type { AccessGrant, Authz, WorkspaceAccess } from '../../core/authz.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import { invalidField, notFound } from '../../core/errors.ts';
import type { WorkspaceService } from '../workspaces/public.ts';
import type { FieldTypeRegistry } from './field-types/registry.ts';
import { FIELD_COLUMNS, toField, type FieldRow } from './fields.view.ts';
import { columnNameOf, tableNameOf } from './names.ts';
import { addColumn, createRecordTable, indexTitle } from './record-table.ts';
import type { TableDrops } from './table-drops.ts';
import type { CreateDatabaseBody, Database, DatabaseListQuery, DatabaseSummary, PatchDatabaseBody } from './schemas.ts';
import type { DatabaseHooks } from './hooks.ts';

export interface DatabaseRow {
  id: string;
  workspace_id: string;
  space_id: string;
  folder_id: string | null;
  name: string;
  description: string | null;
  table_name: string;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['id', 'workspace_id', 'space_id', 'folder_id', 'name', 'description', 'table_name', 'created_by', 'created_at', 'updated_at'];

function toSummary(row: DatabaseRow): DatabaseSummary {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    space_id: row.space_id,
    folder_id: row.folder_id,
    name: row.name,
    description: row.description,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** Fields every database starts with: the title, then the system fields (read-only, on system columns). */
const STARTER_FIELDS = [
  { name: 'Name', api_name: 'name', type: 'text', is_title: true },
  { name: 'Created', api_name: 'created_at', type: 'created_at' },
  { name: 'Last modified', api_name: 'updated_at', type: 'updated_at' },
  { name: 'Created by', api_name: 'created_by', type: 'created_by' },
  { name: 'Last modified by', api_name: 'updated_by', type: 'updated_by' },
];

/**
 * Databases: the metadata rows and, in the same transaction, the table holding their records.
 */
export class DatabaseService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly authz: Authz,
    private readonly workspaces: WorkspaceService,
    private readonly types: FieldTypeRegistry,
    private readonly tableDrops: TableDrops,
    private readonly databaseHooks: DatabaseHooks,
  ) {}

  /** Needs `creator` on the space it goes in (a grant there counts). */
  async create(principal: UserPrincipal, grant: AccessGrant, body: CreateDatabaseBody, inTrx?: Db): Promise<Database> {
    const { access, workspaceId: ws } = grant;
    return inTransaction(this.db, async (trx) => {
      await this.workspaces.hold(trx, ws);
      const space = await this.authz.locate('space', { workspaceId: ws, id: body.space_id, trx, lock: true });
      if (!space || !this.authz.canSee(principal, access, space.path)) throw invalidField('/space_id', 'No such space in this workspace.');
      this.authz.demand(principal, grant, 'creator', space.path);
      if (body.folder_id) await this.checkFolder(trx, ws, body.space_id, body.folder_id);

      const id = randomUUID();
      const table = tableNameOf(id);
      const [row] = (await trx('databases')
        .insert({
          id,
          workspace_id: ws,
          space_id: body.space_id,
          folder_id: body.folder_id ?? null,
          name: body.name.trim(),
          description: body.description ?? null,
          table_name: table,
          created_by: principal.user.id,
        })
        .returning(COLUMNS)) as DatabaseRow[];
      await createRecordTable(trx, table);

      const fields: FieldRow[] = [];
      for (const [position, starter] of STARTER_FIELDS.entries()) {
        const type = this.types.get(starter.type)!;
        const fieldId = randomUUID();
        const column = type.column ? columnNameOf(fieldId) : null;
        const [field] = (await trx('fields')
          .insert({ id: fieldId, workspace_id: ws, database_id: id, name: starter.name, api_name: starter.api_name, type: starter.type, column_name: column, is_title: !!starter.is_title, position, created_by: principal.user.id })
          .returning(FIELD_COLUMNS)) as FieldRow[];
        if (column && type.column) {
          await addColumn(trx, table, column, type.column(field.options));
          if (field.is_title) await indexTitle(trx, table, column);
        }
        fields.push(field);
      }
      await this.databaseHooks.created.promise({ trx, workspaceId: ws, databaseId: id, createdBy: principal.user.id });
      const views = await this.databaseHooks.views.promise([], { db: trx, databaseId: id });

      const database = { ...toSummary(row), fields: fields.map((f) => toField(f, this.types)), views };
      await this.events.emit(trx, { name: 'database.created', workspaceId: ws, actorId: principal.user.id, payload: { database: toSummary(row) } });
      return database;
    }, inTrx);
  }

  /** The databases the caller can see: everyone but a guest sees all; a guest those in its spaces or granted to it. */
  async listVisible(principal: UserPrincipal, access: WorkspaceAccess, query: DatabaseListQuery): Promise<Page<DatabaseSummary>> {
    const q = this.db('databases').where('workspace_id', access.workspaceId).select(COLUMNS);
    if (query.space_id) q.where('space_id', query.space_id);
    const scopes = this.authz.visibleScopes(principal, access);
    if (scopes !== 'all') {
      const { spaces, databases } = scopes;
      if (spaces.length === 0 && databases.length === 0) return { data: [], next_cursor: null };
      q.where((w) => {
        if (spaces.length) w.orWhereIn('space_id', spaces);
        if (databases.length) w.orWhereIn('id', databases);
      });
    }
    const page = await keysetPage<DatabaseRow>(this.db, q, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'asc' }, query);
    return { data: page.data.map(toSummary), next_cursor: page.next_cursor };
  }

  async get(workspaceId: string, id: string): Promise<Database> {
    const row = (await this.db('databases').where({ id, workspace_id: workspaceId }).first(COLUMNS)) as DatabaseRow | undefined;
    if (!row) throw notFound();
    const fields = (await this.db('fields').where({ database_id: id }).whereNull('deleted_at').orderBy([{ column: 'is_title', order: 'desc' }, 'position']).select(FIELD_COLUMNS)) as FieldRow[];
    const views = await this.databaseHooks.views.promise([], { db: this.db, databaseId: id });
    return { ...toSummary(row), fields: fields.map((f) => toField(f, this.types)), views };
  }

  async update(principal: UserPrincipal, workspaceId: string, id: string, body: PatchDatabaseBody): Promise<Database> {
    await inTransaction(this.db, async (trx) => {
      await this.workspaces.hold(trx, workspaceId);
      const before = (await trx('databases').where({ id, workspace_id: workspaceId }).forUpdate().first(COLUMNS)) as DatabaseRow | undefined;
      if (!before) throw notFound();
      const patch: Record<string, unknown> = { updated_at: trx.fn.now() };
      if (body.name !== undefined) patch.name = body.name.trim();
      if (body.description !== undefined) patch.description = body.description;
      if (body.folder_id !== undefined) {
        if (body.folder_id) await this.checkFolder(trx, workspaceId, before.space_id, body.folder_id);
        patch.folder_id = body.folder_id;
      }
      const [after] = (await trx('databases').where({ id }).update(patch).returning(COLUMNS)) as DatabaseRow[];
      await this.events.emit(trx, { name: 'database.updated', workspaceId, actorId: principal.user.id, payload: { before: toSummary(before), after: toSummary(after) } });
    });
    return this.get(workspaceId, id);
  }

  /** Permanent: the metadata and the records' table go in one transaction. */
  async delete(principal: UserPrincipal, workspaceId: string, id: string, confirm: string, inTrx?: Db): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      await this.workspaces.hold(trx, workspaceId);
      const row = (await trx('databases').where({ id, workspace_id: workspaceId }).forUpdate().first(COLUMNS)) as DatabaseRow | undefined;
      if (!row) throw notFound();
      if (confirm !== row.name) throw invalidField('/confirm', 'Type the database\'s name exactly to delete it with all its records.');
      await this.drop(trx, principal, row);
    }, inTrx);
  }

  /** Drops every database of a space or workspace that is being deleted (their rows would go by cascade, their tables would not). */
  async dropAllIn(trx: Db, principal: UserPrincipal | undefined, where: { workspace_id: string; space_id?: string }): Promise<void> {
    const rows = (await trx('databases').where(where).forUpdate().select(COLUMNS)) as DatabaseRow[];
    for (const row of rows) await this.drop(trx, principal, row);
  }

  private async drop(trx: Db, principal: UserPrincipal | undefined, row: DatabaseRow): Promise<void> {
    // Before the row goes: what reaches into this database from others (relations) still finds it.
    const deletion = { trx, workspaceId: row.workspace_id, databaseId: row.id, actor: principal };
    await this.databaseHooks.deleting.promise(deletion);
    await this.tableDrops.later(trx, [row.table_name]);
    await trx('databases').where({ id: row.id }).delete();
    await this.databaseHooks.deleted.promise(deletion);
    await this.events.emit(trx, { name: 'database.deleted', workspaceId: row.workspace_id, actorId: principal?.user.id ?? null, payload: { database: toSummary(row) } });
  }

  private async checkFolder(trx: Trx, workspaceId: string, spaceId: string, folderId: string): Promise<void> {
    const folder = await this.authz.locate('folder', { workspaceId, id: folderId, trx, lock: true });
    if (!folder || folder.path[0]?.id !== spaceId) throw invalidField('/folder_id', 'No such folder in this space.');
  }
}
