import type { Authz, WorkspaceAccess } from '../../core/authz.ts';
import { inTransaction, type Db } from '../../core/db.ts';
import { notFound } from '../../core/errors.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { tableNameOf, type CellContext, type CellProblem, type CellStore, type CellWrite, type FieldMeta } from '../databases/public.ts';
import { RecordErrors, refusal, type ApiRecord, type LiveField, type RecordService, type RecordTable } from '../records/public.ts';
import { junctionNameOf } from './junction.ts';
import { linkEnds, type LinkOptions } from './link-type.ts';

type Pair = { from_id: string; to_id: string };

/**
 * Links between records, through a link field: added by the link routes, or a link cell
 * written with the record (which replaces the record's links). In a one-to-many relation a `to`
 * record has one `from` at most: a second → 409 naming the record it is linked to. A link to a
 * record in the trash is hidden, and gives way to a new one (it does not come back with that record).
 * A writer who cannot see the other database sees the cell empty, and its writes leave the links as
 * they are: an unlink removes nothing, a replace only adds, a duplicate carries none.
 */
export class LinkService implements CellStore {
  constructor(
    private readonly db: Db,
    private readonly authz: Authz,
    private readonly records: RecordService,
  ) {}

  async add(principal: UserPrincipal, access: WorkspaceAccess, databaseId: string, recordId: string, fieldRef: string, targetIds: string[]): Promise<ApiRecord> {
    const workspaceId = access.workspaceId;
    return inTransaction(this.db, async (trx) => {
      const table = await this.records.open(trx, workspaceId, databaseId);
      const field = linkField(table, fieldRef);
      const held = await table.find(trx, recordId, true);
      if (!held) throw notFound('No such record in this database.');
      const cell = { recordId, value: targetIds, pointer: '/record_ids' };
      const problems = await this.check(trx, field, [cell], { workspaceId, userId: principal.user.id }, 'add');
      if (problems.length > 0) throw refusal(problems);
      const [before] = await this.records.present(trx, table, [held]);
      const added = await this.link(trx, field, [cell], 'add');
      const [after] = await this.records.present(trx, table, [(await table.find(trx, recordId))!]);
      if (added.length > 0) {
        await this.records.changed(trx, principal, table, [{ kind: 'updated', recordId, before, after }], {
          events: { name: 'links.added', workspaceId, actorId: principal.user.id, payload: { relation_id: options(field).relation_id, links: added } },
        });
      }
      return after;
    });
  }

  /** Unlinking what is not linked, or what the caller cannot see, changes nothing (204 all the same). */
  async remove(principal: UserPrincipal, access: WorkspaceAccess, databaseId: string, recordId: string, fieldRef: string, targetId: string): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      const table = await this.records.open(trx, access.workspaceId, databaseId);
      const o = options(linkField(table, fieldRef));
      const held = await table.find(trx, recordId, true);
      if (!held) throw notFound('No such record in this database.');
      if (!(await this.sees(trx, o, { workspaceId: access.workspaceId, userId: principal.user.id }))) return;
      const { mine, theirs } = linkEnds(o);
      const [before] = await this.records.present(trx, table, [held]);
      const removed = (await trx(junctionNameOf(o.relation_id)).where({ [mine]: recordId, [theirs]: targetId }).delete().returning(['from_id', 'to_id'])) as Pair[];
      if (removed.length > 0) {
        const [after] = await this.records.present(trx, table, [(await table.find(trx, recordId))!]);
        await this.records.changed(trx, principal, table, [{ kind: 'updated', recordId, before, after }], {
          events: { name: 'links.removed', workspaceId: access.workspaceId, actorId: principal.user.id, payload: { relation_id: o.relation_id, links: removed } },
        });
      }
    });
  }

  /**
   * Problems of link cells: targets that are not live records of the other database the writer
   * can see (422 at `<pointer>/<i>`), several targets on the one side (422), and in one-to-many
   * relations targets linked to another live record, or claimed twice in one write (409).
   */
  async check(trx: Db, field: FieldMeta<any>, cells: CellWrite[], ctx: CellContext, mode: 'add' | 'replace' = 'replace'): Promise<CellProblem[]> {
    const o = options(field);
    const problems: CellProblem[] = [];
    const targets = [...new Set(cells.flatMap((c) => c.value as string[]))];
    const live = await this.liveTargets(trx, o, targets, ctx);
    for (const cell of cells) {
      const ids = cell.value as string[];
      if (!o.many && ids.length > 1) problems.push({ recordId: cell.recordId, pointer: cell.pointer, detail: `"${field.api_name}" links a record to one record at most.` });
      ids.forEach((id, i) => {
        if (!live.has(id)) problems.push({ recordId: cell.recordId, pointer: `${cell.pointer}/${i}`, detail: `No live record ${id} in the linked database.` });
      });
    }
    // From the `to` side a cell replaces the record's one link; adding to it needs it free.
    if (o.kind === 'one_to_many' && o.side === 'from') problems.push(...(await this.clashes(trx, o, cells)));
    else if (o.kind === 'one_to_many' && mode === 'add') problems.push(...(await this.taken(trx, o, cells)));
    return problems;
  }

  /**
   * Replaces each record's links through the field with the checked ones; for a writer who cannot see the linked
   * database (the cell reads empty to it), adds them to the links it cannot see instead.
   */
  async write(trx: Db, field: FieldMeta<any>, cells: CellWrite[], ctx: CellContext): Promise<void> {
    await this.link(trx, field, cells, (await this.sees(trx, options(field), ctx)) ? 'replace' : 'add');
  }

  /**
   * A duplicate's links: the source's links to live records, unless the targets could then have
   * two links (the `from` side of a one-to-many: its children stay with the source), or the caller
   * cannot see them.
   */
  async duplicate(trx: Db, field: FieldMeta<any>, sourceId: string, copyId: string, ctx: CellContext): Promise<void> {
    const o = options(field);
    if (o.kind === 'one_to_many' && o.side === 'from') return;
    if (!(await this.sees(trx, o, ctx))) return;
    const { mine, theirs } = linkEnds(o);
    await trx.raw(
      `INSERT INTO ?? (${mine}, ${theirs}) SELECT ?::uuid, j.${theirs} FROM ?? j JOIN ?? t ON t.id = j.${theirs} AND t.deleted_at IS NULL WHERE j.${mine} = ? ORDER BY j.created_at, j.${theirs}`,
      [junctionNameOf(o.relation_id), copyId, junctionNameOf(o.relation_id), tableNameOf(o.target_database_id), sourceId],
    );
  }

  /** Adds the cells' links (and with `replace`, drops the records' other links through the field); returns those added. */
  private async link(trx: Db, field: FieldMeta<any>, cells: CellWrite[], mode: 'add' | 'replace'): Promise<Pair[]> {
    const o = options(field);
    const { mine, theirs } = linkEnds(o);
    const junction = junctionNameOf(o.relation_id);
    if (mode === 'replace') {
      for (const cell of cells) await trx(junction).where(mine, cell.recordId).whereNotIn(theirs, cell.value as string[]).delete();
    }
    const pairs: Pair[] = cells.flatMap((cell) => (cell.value as string[]).map((t) => (mine === 'from_id' ? { from_id: cell.recordId, to_id: t } : { from_id: t, to_id: cell.recordId })));
    if (pairs.length === 0) return [];
    // One-to-many: a `to` record keeps one link; a hidden one (its `from` in the trash) gives way.
    if (o.kind === 'one_to_many') {
      await trx.raw(`DELETE FROM ?? j USING (SELECT * FROM unnest(?::uuid[], ?::uuid[]) AS p(from_id, to_id)) p WHERE j.to_id = p.to_id AND j.from_id <> p.from_id`, [
        junction,
        pairs.map((p) => p.from_id),
        pairs.map((p) => p.to_id),
      ]);
    }
    return (await trx(junction)
      .insert(pairs)
      .onConflict(['from_id', 'to_id'])
      .ignore()
      .returning(['from_id', 'to_id'])
      .catch((err: { code?: string }) => {
        // Another transaction linked one of these `to` records meanwhile (the unique index on to_id).
        if (err.code === '23505') throw RecordErrors.link_conflict('One of these records was just linked to another record; a one-to-many link allows one.');
        throw err;
      })) as Pair[];
  }

  /** Whether the writer sees the linked database (a public form's writer, with no user, sees none). */
  private async sees(trx: Db, o: LinkOptions, ctx: CellContext): Promise<boolean> {
    if (ctx.userId === null) return false;
    const location = await this.authz.locate('database', { workspaceId: ctx.workspaceId, id: o.target_database_id, trx });
    return !!location && (await this.authz.userCanSee(ctx.userId, ctx.workspaceId, location.path, trx));
  }

  /** The targets that are live records of the other database, if the writer can see it; held until commit. */
  private async liveTargets(trx: Db, o: LinkOptions, targets: string[], ctx: CellContext): Promise<Set<string>> {
    if (targets.length === 0 || !(await this.sees(trx, o, ctx))) return new Set();
    return new Set((await trx(tableNameOf(o.target_database_id)).whereIn('id', targets).whereNull('deleted_at').forKeyShare().pluck('id')) as string[]);
  }

  /** One-to-many, from the `from` side: targets linked to another live record, or claimed by two records of the write. */
  private async clashes(trx: Db, o: LinkOptions, cells: CellWrite[]): Promise<CellProblem[]> {
    const owner = await this.liveOwners(trx, o, [...new Set(cells.flatMap((c) => c.value as string[]))]);
    const problems: CellProblem[] = [];
    for (const cell of cells) {
      (cell.value as string[]).forEach((id, i) => {
        const other = owner.get(id);
        if (other !== undefined && other !== cell.recordId) {
          problems.push({ recordId: cell.recordId, pointer: `${cell.pointer}/${i}`, detail: `Record ${id} is already linked to record ${other}; a one-to-many link allows one.`, conflict: true, extensions: { linked_record_id: other } });
        } else owner.set(id, cell.recordId);
      });
    }
    return problems;
  }

  /** One-to-many, adding from the `to` side: the record linked to another live record already. */
  private async taken(trx: Db, o: LinkOptions, cells: CellWrite[]): Promise<CellProblem[]> {
    const owner = await this.liveOwners(trx, o, cells.map((c) => c.recordId));
    return cells.flatMap((cell) => {
      const current = owner.get(cell.recordId);
      if (current === undefined || (cell.value as string[]).includes(current)) return [];
      const detail = `Record ${cell.recordId} is already linked to record ${current}; a one-to-many link allows one.`;
      return [{ recordId: cell.recordId, pointer: cell.pointer, detail, conflict: true, extensions: { linked_record_id: current } }];
    });
  }

  /** One-to-many: the live `from` record each of `toIds` is linked to, its link held until commit. */
  private async liveOwners(trx: Db, o: LinkOptions, toIds: string[]): Promise<Map<string, string>> {
    if (toIds.length === 0) return new Map();
    // The `from` database is this field's own on its `from` side, the linked one on its `to` side.
    const fromDatabase = o.side === 'to' ? o.target_database_id : ((await trx('relations').where({ id: o.relation_id }).first('from_database_id')) as { from_database_id: string }).from_database_id;
    const links = (await trx(`${junctionNameOf(o.relation_id)} as j`)
      .join(`${tableNameOf(fromDatabase)} as f`, 'f.id', 'j.from_id')
      .whereIn('j.to_id', toIds)
      .whereNull('f.deleted_at')
      .forUpdate('j')
      .select('j.from_id', 'j.to_id')) as Pair[];
    return new Map(links.map((p) => [p.to_id, p.from_id]));
  }
}

function options(field: FieldMeta<any>): LinkOptions {
  return field.options as LinkOptions;
}

/** A live link field of the table by id or api_name; 404 otherwise. */
function linkField(table: RecordTable, ref: string): LiveField {
  const field = table.field(ref);
  if (!field || field.type !== 'link') throw notFound('No such link field in this database.');
  return field;
}
