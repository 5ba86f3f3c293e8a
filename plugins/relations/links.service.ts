import type { Authz, WorkspaceAccess } from '../../core/authz.ts';
import type { Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import { conflict, invalidField, notFound, validationFailed, type ErrorDetail } from '../../core/errors.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { tableNameOf } from '../databases/names.ts';
import type { LiveField, RecordTable } from '../records/record-table.ts';
import type { RecordService } from '../records/records.service.ts';
import type { ApiRecord } from '../records/schemas.ts';
import { junctionNameOf } from './junction.ts';
import { linkEnds, type LinkOptions } from './link-type.ts';

type Pair = { from_id: string; to_id: string };

/**
 * Links between records, through a link field. In a one-to-many relation a `to` record has one
 * `from` at most: a second → 409 naming the record it is linked to. A link to a record now in
 * the trash is hidden, and gives way to a new one (it does not come back with that record).
 */
export class LinkService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly authz: Authz,
    private readonly records: RecordService,
  ) {}

  async add(principal: UserPrincipal, access: WorkspaceAccess, databaseId: string, recordId: string, fieldRef: string, targetIds: string[]): Promise<ApiRecord> {
    const workspaceId = access.workspaceId;
    return this.db.transaction(async (trx) => {
      const table = await this.records.open(trx, workspaceId, databaseId);
      const field = linkField(table, fieldRef);
      const o = field.options as LinkOptions;
      if (!(await table.find(trx, recordId, true))) throw notFound('No such record in this database.');
      if (!o.many && targetIds.length > 1) throw invalidField('/record_ids', `"${field.api_name}" links a record to one record at most.`);
      await this.checkTargets(principal, access, trx, o, targetIds);
      const junction = junctionNameOf(o.relation_id);
      const pairs: Pair[] = targetIds.map((t) => (linkEnds(o).mine === 'from_id' ? { from_id: recordId, to_id: t } : { from_id: t, to_id: recordId }));
      const relation = (await trx('relations').where({ id: o.relation_id }).first('kind', 'from_database_id')) as { kind: string; from_database_id: string };
      if (relation.kind === 'one_to_many') await this.makeRoom(trx, tableNameOf(relation.from_database_id), junction, pairs);
      const added = (await trx(junction)
        .insert(pairs)
        .onConflict(['from_id', 'to_id'])
        .ignore()
        .returning(['from_id', 'to_id'])
        .catch((err: { code?: string }) => {
          // Another transaction linked one of these `to` records meanwhile (the unique index on to_id).
          if (err.code === '23505') throw conflict('One of these records was just linked to another record; a one-to-many link allows one.');
          throw err;
        })) as Pair[];
      if (added.length > 0) {
        await this.events.emit(trx, { name: 'links.added', workspaceId, actorId: principal.user.id, payload: { relation_id: o.relation_id, links: added } });
      }
      const row = await table.find(trx, recordId);
      return (await this.records.present(trx, table, [row!]))[0];
    });
  }

  /** Unlinking what is not linked changes nothing (204 all the same). */
  async remove(principal: UserPrincipal, access: WorkspaceAccess, databaseId: string, recordId: string, fieldRef: string, targetId: string): Promise<void> {
    await this.db.transaction(async (trx) => {
      const table = await this.records.open(trx, access.workspaceId, databaseId);
      const o = linkField(table, fieldRef).options as LinkOptions;
      if (!(await table.find(trx, recordId, true))) throw notFound('No such record in this database.');
      const { mine, theirs } = linkEnds(o);
      const removed = (await trx(junctionNameOf(o.relation_id)).where({ [mine]: recordId, [theirs]: targetId }).delete().returning(['from_id', 'to_id'])) as Pair[];
      if (removed.length > 0) {
        await this.events.emit(trx, { name: 'links.removed', workspaceId: access.workspaceId, actorId: principal.user.id, payload: { relation_id: o.relation_id, links: removed } });
      }
    });
  }

  /** Every target must be a live record of the target database, which the caller can see: 422 at its pointer. */
  private async checkTargets(principal: UserPrincipal, access: WorkspaceAccess, trx: Db, o: LinkOptions, targetIds: string[]): Promise<void> {
    const location = await this.authz.locate('database', { workspaceId: access.workspaceId, id: o.target_database_id, trx });
    const visible = !!location && this.authz.canSee(principal, access, location.path);
    const live = visible
      ? new Set((await trx(tableNameOf(o.target_database_id)).whereIn('id', targetIds).whereNull('deleted_at').forKeyShare().pluck('id')) as string[])
      : new Set<string>();
    const errors: ErrorDetail[] = targetIds.flatMap((id, i) => (live.has(id) ? [] : [{ pointer: `/record_ids/${i}`, detail: `No live record ${id} in the linked database.` }]));
    if (errors.length > 0) throw validationFailed(errors);
  }

  /**
   * In a one-to-many relation: a `to` record linked to another live `from` record → 409 naming
   * it; a link to a `from` record in the trash is removed to make room.
   */
  private async makeRoom(trx: Db, fromTable: string, junction: string, pairs: Pair[]): Promise<void> {
    const existing = (await trx(`${junction} as j`)
      .leftJoin(`${fromTable} as f`, 'f.id', 'j.from_id')
      .whereIn('j.to_id', pairs.map((p) => p.to_id))
      .forUpdate('j')
      .select('j.from_id', 'j.to_id', trx.raw('f.deleted_at IS NULL AND f.id IS NOT NULL AS live'))) as Array<Pair & { live: boolean }>;
    for (const link of existing) {
      const wanted = pairs.find((p) => p.to_id === link.to_id)!;
      if (link.from_id === wanted.from_id) continue;
      if (link.live) throw conflict(`Record ${link.to_id} is already linked to record ${link.from_id}; a one-to-many link allows one.`, { linked_record_id: link.from_id });
      await trx(junction).where({ from_id: link.from_id, to_id: link.to_id }).delete();
    }
  }
}

/** A live link field of the table by id or api_name; 404 otherwise. */
function linkField(table: RecordTable, ref: string): LiveField {
  const field = table.byApiName.get(ref) ?? table.fields.find((f) => f.id === ref);
  if (!field || field.type !== 'link') throw notFound('No such link field in this database.');
  return field;
}
