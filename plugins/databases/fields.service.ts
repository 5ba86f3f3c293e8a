import { randomUUID } from 'node:crypto';
import type { Authz } from '../../core/authz.ts';
import { countRows, inTransaction, type Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { invalidField } from '../../core/errors.ts';
import { DatabaseErrors } from './errors.ts';
import type { WorkspaceService } from '../workspaces/public.ts';
import type { OptionsWriter } from './field-types/field-type.ts';
import type { FieldTypeRegistry } from './field-types/registry.ts';
import { FIELD_COLUMNS, toField, type FieldRow } from './fields.view.ts';
import { columnNameOf, deriveApiName } from './names.ts';
import { addColumn } from './record-table.ts';
import type { FieldLimits } from './field-limits.ts';
import { checkOptions, findField, refuseManaged, refuseSynced } from './field-lookup.ts';
import { beginSchemaChange } from './schema-change.ts';
import type { Field } from './schemas.ts';
import type { CreateFieldBody, PatchFieldBody } from './fields.schemas.ts';

/** Fields of a database: metadata rows and, in the same transaction, their columns. */
export class FieldService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly workspaces: WorkspaceService,
    private readonly types: FieldTypeRegistry,
    private readonly limits: FieldLimits,
    private readonly authz: Authz,
  ) {}

  /** The caller as `resolveOptions` asks about it: what it sees, read in the writing transaction. */
  private writer(principal: UserPrincipal, workspaceId: string, trx: Db): OptionsWriter {
    return {
      sees: async (databaseId) => this.authz.seesResource(principal, await this.authz.workspaceAccess(principal, workspaceId, trx), 'database', databaseId, trx),
    };
  }

  async list(databaseId: string, deleted: boolean): Promise<{ data: Field[] }> {
    const q = this.db('fields').where({ database_id: databaseId }).orderBy([{ column: 'is_title', order: 'desc' }, 'position']).select(FIELD_COLUMNS);
    if (deleted) q.whereNotNull('deleted_at');
    else q.whereNull('deleted_at');
    return { data: ((await q) as FieldRow[]).map((f) => toField(f, this.types)) };
  }

  async get(databaseId: string, ref: string): Promise<Field> {
    return toField(await findField(this.db, databaseId, ref), this.types);
  }

  async create(principal: UserPrincipal, workspaceId: string, databaseId: string, body: CreateFieldBody, inTrx?: Db): Promise<Field> {
    const type = this.types.get(body.type);
    if (!type) throw invalidField('/type', `Unknown field type "${body.type}". Known: ${this.types.names().join(', ')}.`);
    if (type.managedBy) throw invalidField('/type', `A ${type.type} field is made by the ${type.managedBy} plugin (for a link: POST /workspaces/{ws}/relations).`);
    const checked = checkOptions(type, body.options ?? {});
    return inTransaction(this.db, async (trx) => {
      await this.workspaces.hold(trx, workspaceId);
      const table = await beginSchemaChange(trx, databaseId);
      await this.limits.assertRoom(trx, databaseId, { live: 1, columns: type.column ? 1 : 0 });
      const options = type.resolveOptions ? await type.resolveOptions(trx, databaseId, checked, this.writer(principal, workspaceId, trx)) : checked;
      const existing = (await trx('fields').where({ database_id: databaseId }).select('name', 'api_name', 'deleted_at', 'position')) as FieldRow[];
      const name = body.name.trim();
      if (existing.some((f) => !f.deleted_at && f.name.toLowerCase() === name.toLowerCase())) throw invalidField('/name', `A field named "${name}" exists already.`);
      const taken = new Set(existing.map((f) => f.api_name));
      if (body.api_name && taken.has(body.api_name)) throw invalidField('/api_name', `The api_name "${body.api_name}" is taken (deleted fields keep theirs).`);
      const apiName = body.api_name ?? deriveApiName(name, (candidate) => taken.has(candidate));
      const id = randomUUID();
      const column = type.column ? columnNameOf(id) : null;
      const [row] = (await trx('fields')
        .insert({
          id,
          workspace_id: workspaceId,
          database_id: databaseId,
          name,
          api_name: apiName,
          type: type.type,
          options: JSON.stringify(options),
          column_name: column,
          position: Math.max(0, ...existing.map((f) => f.position)) + 1,
          created_by: principal.user.id,
        })
        .returning(FIELD_COLUMNS)) as FieldRow[];
      if (column && type.column) await addColumn(trx, table, column, type.column(options));
      const field = toField(row, this.types);
      await this.events.emit(trx, { name: 'field.created', workspaceId, actorId: principal.user.id, payload: { database_id: databaseId, field } });
      return field;
    }, inTrx);
  }

  async update(principal: UserPrincipal, workspaceId: string, databaseId: string, ref: string, body: PatchFieldBody, inTrx?: Db): Promise<Field> {
    return inTransaction(this.db, async (trx) => {
      await this.workspaces.hold(trx, workspaceId);
      const table = await beginSchemaChange(trx, databaseId);
      const before = await findField(trx, databaseId, ref, { lock: true });
      const type = this.types.get(before.type)!;
      const patch: Record<string, unknown> = { updated_at: trx.fn.now() };
      if (body.name !== undefined) {
        const name = body.name.trim();
        const clash = await trx('fields').where({ database_id: databaseId }).whereNull('deleted_at').whereNot({ id: before.id }).whereRaw('lower(name) = ?', [name.toLowerCase()]).first('id');
        if (clash) throw invalidField('/name', `A field named "${name}" exists already.`);
        patch.name = name;
      }
      if (body.api_name !== undefined && body.api_name !== before.api_name) {
        if (await trx('fields').where({ database_id: databaseId, api_name: body.api_name }).first('id')) throw invalidField('/api_name', `The api_name "${body.api_name}" is taken.`);
        patch.api_name = body.api_name;
      }
      if (body.options !== undefined) {
        refuseSynced(before, 're-optioned');
        const checked = checkOptions(type, body.options, before.options);
        const options = type.resolveOptions ? await type.resolveOptions(trx, databaseId, checked, this.writer(principal, workspaceId, trx)) : checked;
        // A different column type is a conversion, which says what it would lose first.
        if (type.column && type.column(options) !== type.column(before.options)) {
          throw invalidField('/options', 'These options change how values are stored; use POST …/convert.');
        }
        // Options that stored values no longer fit would leave cells no write could store: a conversion rounds them, saying how first.
        if (type.misfitSql && before.column_name) {
          const col = trx.raw('??', [before.column_name]).toQuery();
          const [{ n }] = (await trx.raw(`SELECT count(*)::int AS n FROM ?? WHERE ${type.misfitSql(col, { ...before, options })}`, [table])).rows;
          if (n > 0) {
            throw invalidField(
              '/options',
              `${n} records hold values these options do not allow (finer than the precision, negative, or past the maximum). ` +
                `Convert the field to ${type.type} with these options instead (POST …/convert, with "dry_run": true first to see what changes).`,
            );
          }
        }
        patch.options = JSON.stringify(options);
      }
      const [row] = (await trx('fields').where({ id: before.id }).update(patch).returning(FIELD_COLUMNS)) as FieldRow[];
      const field = toField(row, this.types);
      await this.events.emit(trx, { name: 'field.updated', workspaceId, actorId: principal.user.id, payload: { database_id: databaseId, before: toField(before, this.types), after: field } });
      return field;
    }, inTrx);
  }

  /** Soft delete: the column stays, so a restore brings every value back. The title field cannot go. */
  async delete(principal: UserPrincipal, workspaceId: string, databaseId: string, ref: string): Promise<{ records_with_value: number }> {
    return inTransaction(this.db, async (trx) => {
      await this.workspaces.hold(trx, workspaceId);
      const table = await beginSchemaChange(trx, databaseId);
      const field = await findField(trx, databaseId, ref, { lock: true });
      if (field.is_title) throw DatabaseErrors.title_field();
      refuseManaged(this.types, field, 'deleted');
      refuseSynced(field, 'deleted');
      const withValue = field.column_name ? await countRows(trx(table).whereNull('deleted_at').whereNotNull(field.column_name)) : 0;
      await trx('fields').where({ id: field.id }).update({ deleted_at: trx.fn.now(), updated_at: trx.fn.now() });
      await this.events.emit(trx, { name: 'field.deleted', workspaceId, actorId: principal.user.id, payload: { database_id: databaseId, field: toField(field, this.types), records_with_value: withValue } });
      return { records_with_value: withValue };
    });
  }

  async restore(principal: UserPrincipal, workspaceId: string, databaseId: string, ref: string): Promise<Field> {
    return inTransaction(this.db, async (trx) => {
      await this.workspaces.hold(trx, workspaceId);
      await beginSchemaChange(trx, databaseId);
      const field = await findField(trx, databaseId, ref, { lock: true, includeDeleted: true });
      if (!field.deleted_at) return toField(field, this.types);
      refuseManaged(this.types, field, 'restored');
      await this.limits.assertRoom(trx, databaseId, { live: 1, columns: 0 });
      const clash = await trx('fields').where({ database_id: databaseId }).whereNull('deleted_at').whereRaw('lower(name) = ?', [field.name.toLowerCase()]).first('id');
      if (clash) throw DatabaseErrors.name_taken(field.name);
      const [row] = (await trx('fields').where({ id: field.id }).update({ deleted_at: null, updated_at: trx.fn.now() }).returning(FIELD_COLUMNS)) as FieldRow[];
      const restored = toField(row, this.types);
      await this.events.emit(trx, { name: 'field.restored', workspaceId, actorId: principal.user.id, payload: { database_id: databaseId, field: restored } });
      return restored;
    });
  }
}
