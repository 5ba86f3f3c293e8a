import { randomUUID } from 'node:crypto';
import type { Authz, WorkspaceAccess } from '../../core/authz.ts';
import { inTransaction, type Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import { forbidden, invalidField, notFound, validationFailed, type ErrorDetail } from '../../core/errors.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { beginSchemaChange, deriveApiName, type FieldLimits, type FieldRow, type ManagedFields, type TableDrops } from '../databases/public.ts';
import type { WorkspaceService } from '../workspaces/public.ts';
import { createJunction, junctionNameOf, type RelationKind } from './junction.ts';
import { releaseMatchIndexes } from './auto-link.ts';
import type { LinkOptions } from './link-type.ts';
import type { CreateRelationBody, Relation, RelationListQuery } from './schemas.ts';

export interface RelationRow {
  id: string;
  workspace_id: string;
  kind: RelationKind;
  from_database_id: string;
  to_database_id: string;
  from_field_id: string;
  to_field_id: string;
  junction_table: string;
  created_by: string | null;
  created_at: Date;
}

/**
 * Relations between databases. Creating one adds a link field on each side and the junction
 * table, in one transaction that opens a schema change on both databases (in id order, so two
 * relations made at once cannot deadlock); deleting one removes all three.
 */
export class RelationService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly authz: Authz,
    private readonly workspaces: WorkspaceService,
    private readonly tableDrops: TableDrops,
    private readonly limits: FieldLimits,
    private readonly fields: ManagedFields,
  ) {}

  async create(principal: UserPrincipal, access: WorkspaceAccess, body: CreateRelationBody, inTrx?: Db): Promise<Relation> {
    const workspaceId = access.workspaceId;
    await this.requireCreator(
      principal,
      access,
      [
        { id: body.from_database_id, pointer: '/from_database_id' },
        { id: body.to_database_id, pointer: '/to_database_id' },
      ],
      inTrx,
    );
    const id = randomUUID();
    await inTransaction(this.db, async (trx) => {
      await this.workspaces.hold(trx, workspaceId);
      await changeBothDatabases(trx, body.from_database_id, body.to_database_id);
      // A link field on each side (two on one database related to itself); they have no column.
      if (body.from_database_id === body.to_database_id) await this.limits.assertRoom(trx, body.from_database_id, { live: 2, columns: 0 });
      else for (const side of [body.from_database_id, body.to_database_id]) await this.limits.assertRoom(trx, side, { live: 1, columns: 0 });
      const fromFields = await this.fieldsOf(trx, body.from_database_id);
      const toFields = body.to_database_id === body.from_database_id ? fromFields : await this.fieldsOf(trx, body.to_database_id);
      const errors: ErrorDetail[] = [];
      const fromName = body.from_field_name.trim();
      const toName = body.to_field_name.trim();
      if (clashes(fromFields, fromName)) errors.push({ pointer: '/from_field_name', detail: `A field named "${fromName}" exists already in that database.` });
      if (clashes(toFields, toName) || (body.to_database_id === body.from_database_id && fromName.toLowerCase() === toName.toLowerCase())) {
        errors.push({ pointer: '/to_field_name', detail: `A field named "${toName}" exists already in that database.` });
      }
      if (errors.length > 0) throw validationFailed(errors);

      const fromFieldId = randomUUID();
      const toFieldId = randomUUID();
      const junction = junctionNameOf(id);
      const fromOptions: LinkOptions = { relation_id: id, target_database_id: body.to_database_id, target_title_field_id: titleOf(toFields), side: 'from', many: true, kind: body.kind };
      const toOptions: LinkOptions = { relation_id: id, target_database_id: body.from_database_id, target_title_field_id: titleOf(fromFields), side: 'to', many: body.kind === 'many_to_many', kind: body.kind };
      const taken = new Map<string, Set<string>>();
      const linkField = (fieldId: string, databaseId: string, name: string, options: LinkOptions, existing: FieldRow[]) => {
        const names = taken.get(databaseId) ?? new Set(existing.map((f) => f.api_name));
        taken.set(databaseId, names);
        const apiName = deriveApiName(name, (candidate) => names.has(candidate));
        names.add(apiName);
        return {
          id: fieldId,
          workspace_id: workspaceId,
          database_id: databaseId,
          name,
          api_name: apiName,
          type: 'link',
          options: { ...options },
          position: Math.max(0, ...existing.map((f) => f.position)) + (databaseId === body.from_database_id && fieldId === toFieldId ? 2 : 1),
          created_by: principal.user.id,
        };
      };
      await this.fields.insert(trx, [
        linkField(fromFieldId, body.from_database_id, fromName, fromOptions, fromFields),
        linkField(toFieldId, body.to_database_id, toName, toOptions, toFields),
      ]);
      await createJunction(trx, junction, body.kind);
      await trx('relations').insert({
        id,
        workspace_id: workspaceId,
        kind: body.kind,
        from_database_id: body.from_database_id,
        to_database_id: body.to_database_id,
        from_field_id: fromFieldId,
        to_field_id: toFieldId,
        junction_table: junction,
        created_by: principal.user.id,
      });
      const relation = await this.present(trx, await this.find(trx, workspaceId, id));
      await this.events.emit(trx, { name: 'relation.created', workspaceId, actorId: principal.user.id, payload: { relation } });
    }, inTrx);
    // Inside a larger transaction (a pack install) the relation is not committed yet: read it there.
    return inTrx ? this.present(inTrx, await this.find(inTrx, workspaceId, id)) : this.get(workspaceId, id);
  }

  /** Relations of the workspace whose two databases the caller can see, oldest first. */
  async list(principal: UserPrincipal, access: WorkspaceAccess, query: RelationListQuery): Promise<Page<Relation>> {
    const q = this.db('relations').where({ workspace_id: access.workspaceId }).select('*');
    if (query.database_id) q.where((w) => w.where('from_database_id', query.database_id!).orWhere('to_database_id', query.database_id!));
    const page = await keysetPage<RelationRow>(this.db, q, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'asc' }, query);
    const visible = await this.visible(principal, access, page.data);
    return { data: await Promise.all(visible.map((row) => this.present(this.db, row))), next_cursor: page.next_cursor };
  }

  async get(workspaceId: string, id: string): Promise<Relation> {
    return this.present(this.db, await this.find(this.db, workspaceId, id));
  }

  /** A relation the caller can see both databases of; 404 otherwise. */
  async getVisible(principal: UserPrincipal, access: WorkspaceAccess, id: string): Promise<Relation> {
    return this.present(this.db, await this.findVisible(principal, access, id));
  }

  /** Both link fields and every link go; needs `{ confirm: true }` and `creator` on both databases. */
  async delete(principal: UserPrincipal, access: WorkspaceAccess, id: string, confirm: boolean | undefined): Promise<void> {
    const row = await this.findVisible(principal, access, id);
    if (confirm !== true) throw invalidField('/confirm', 'Send `{ "confirm": true }`: the two link fields and every link of this relation will be deleted.');
    await this.requireCreator(principal, access, [
      { id: row.from_database_id, pointer: '' },
      { id: row.to_database_id, pointer: '' },
    ]);
    await inTransaction(this.db, async (trx) => {
      await this.workspaces.hold(trx, access.workspaceId);
      await changeBothDatabases(trx, row.from_database_id, row.to_database_id);
      const locked = (await trx('relations').where({ id }).forUpdate().first('*')) as RelationRow | undefined;
      if (!locked) throw notFound('No such relation in this workspace.');
      const relation = await this.present(trx, locked);
      await this.remove(trx, locked);
      await this.events.emit(trx, { name: 'relation.deleted', workspaceId: access.workspaceId, actorId: principal.user.id, payload: { relation } });
    });
  }

  /**
   * A database being deleted takes its relations along: the link fields in the other databases
   * and the junction tables (called before the database row goes, in its transaction).
   */
  async forgetDatabase(trx: Db, databaseId: string): Promise<void> {
    const rows = (await trx('relations').where('from_database_id', databaseId).orWhere('to_database_id', databaseId).forUpdate().select('*')) as RelationRow[];
    for (const row of rows) {
      for (const other of [row.from_database_id, row.to_database_id]) if (other !== databaseId) await beginSchemaChange(trx, other);
      await this.remove(trx, row);
    }
  }

  async find(db: Db, workspaceId: string, id: string): Promise<RelationRow> {
    const row = (await db('relations').where({ id, workspace_id: workspaceId }).first('*')) as RelationRow | undefined;
    if (!row) throw notFound('No such relation in this workspace.');
    return row;
  }

  /** The relation, its link fields, the lookups, rollups and counts that read through them, and its links. */
  private async remove(trx: Db, row: RelationRow): Promise<void> {
    const rules = (await this.fields.find<LinkOptions>(trx, row.from_field_id))?.options.auto_link ?? [];
    await this.fields.deleteWithReaders(trx, [row.from_field_id, row.to_field_id]);
    await this.tableDrops.later(trx, [row.junction_table]);
    await trx('relations').where({ id: row.id }).delete();
    await releaseMatchIndexes(trx, this.fields, rules);
  }

  private async present(db: Db, row: RelationRow): Promise<Relation> {
    const fields = await this.fields.byIds(db, [row.from_field_id, row.to_field_id]);
    const field = (fieldId: string) => fields.get(fieldId)!;
    return {
      id: row.id,
      workspace_id: row.workspace_id,
      kind: row.kind,
      from_database_id: row.from_database_id,
      to_database_id: row.to_database_id,
      from_field: field(row.from_field_id),
      to_field: field(row.to_field_id),
      created_by: row.created_by,
      created_at: row.created_at.toISOString(),
    };
  }

  private async fieldsOf(trx: Db, databaseId: string): Promise<FieldRow[]> {
    return this.fields.ofDatabase(trx, databaseId);
  }

  /** A relation the caller sees both databases of (as a row); 404 otherwise. */
  async findVisible(principal: UserPrincipal, access: WorkspaceAccess, id: string, trx: Db = this.db): Promise<RelationRow> {
    const row = await this.find(trx, access.workspaceId, id);
    if ((await this.visible(principal, access, [row], trx)).length === 0) throw notFound('No such relation in this workspace.');
    return row;
  }

  private async visible(principal: UserPrincipal, access: WorkspaceAccess, rows: RelationRow[], trx?: Db): Promise<RelationRow[]> {
    const ids = [...new Set(rows.flatMap((row) => [row.from_database_id, row.to_database_id]))];
    const seen = await this.authz.seenIds(principal, access, 'database', ids, trx);
    return rows.filter((row) => seen.has(row.from_database_id) && seen.has(row.to_database_id));
  }

  /** `creator` on each database: an unknown or invisible one → 422 at its pointer, a weaker role → 403. */
  async requireCreator(principal: UserPrincipal, access: WorkspaceAccess, databases: Array<{ id: string; pointer: string }>, trx?: Db): Promise<void> {
    const errors: ErrorDetail[] = [];
    let weaker = false;
    for (const { id, pointer } of databases) {
      const held = await this.authz.holds(principal, access, 'database', id, 'creator', trx);
      if (held === 'unseen') errors.push({ pointer, detail: 'No such database in this workspace.' });
      else if (held === 'weaker') weaker = true;
    }
    if (errors.length > 0) throw validationFailed(errors);
    if (weaker) throw forbidden('Relating databases needs the creator role on both of them.');
  }
}

/** Opens a schema change on the two databases of a relation, locked in one step (in id order, as every schema change locks). */
export async function changeBothDatabases(trx: Db, a: string, b: string): Promise<void> {
  await beginSchemaChange(trx, a, [b]);
}

function clashes(fields: FieldRow[], name: string): boolean {
  return fields.some((f) => !f.deleted_at && f.name.toLowerCase() === name.toLowerCase());
}

function titleOf(fields: FieldRow[]): string {
  return fields.find((f) => f.is_title)!.id;
}
