import type { Authz, WorkspaceAccess } from '../../core/authz.ts';
import { inTransaction, type Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import { AppError, forbidden } from '../../core/errors.ts';
import { decodeCursor, encodeCursor } from '../../core/cursor.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { choicesOf, findField, sqlTrim, tableNameOf, trimText, type FieldRow, type ManagedFields } from '../databases/public.ts';
import type { RecordService } from '../records/public.ts';
import { junctionNameOf } from './junction.ts';
import { linkedRows } from './linked-fields.ts';
import { linkEnds, titleSql, type LinkOptions } from './link-type.ts';
import type { RelationRow, RelationService } from './relations.service.ts';
import type { BulkLinkBody, BulkLinkResult, Drift, DriftItem, DriftQuery, SkippedLink } from './schemas.ts';

type Pair = { from_id: string; to_id: string };

/** The select field compared with a relation's links, and everything the SQL needs about both. */
interface Comparison {
  relation: RelationRow;
  field: FieldRow;
  link: { id: string; options: LinkOptions };
  /** The select field's database (`S`) and the linked one (`T`). */
  mine: string;
  theirs: string;
  /** SQL: the option ids of S's row `r`, as an array. */
  ids: string;
  /** SQL: the title of T's row aliased `t`, as a matching key (trimmed, lower-cased). */
  titleKey: (alias: string) => string;
  /** Bindings of the `c(id, label)` CTE: the choices of the select field. */
  choices: [string[], string[]];
}

const CHOICES_CTE = 'WITH c AS (SELECT * FROM unnest(?::uuid[], ?::text[]) WITH ORDINALITY AS c(id, label, ord))';

/**
 * Drift between a select field and a relation: records whose select labels do not name (by
 * title, ignoring case) exactly the records they are linked to — the state of a base where a
 * select column was used as a link before the relation existed. Bulk link makes them agree.
 */
export class DriftService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly authz: Authz,
    private readonly relations: RelationService,
    private readonly records: RecordService,
    private readonly fields: ManagedFields,
  ) {}

  /** Disagreeing records in record number order, keyset paged. Needs to see both databases. */
  async drift(principal: UserPrincipal, access: WorkspaceAccess, relationId: string, query: DriftQuery): Promise<Drift> {
    const relation = await this.relations.findVisible(principal, access, relationId);
    const cmp = await this.compare(this.db, relation, query.field_id, '/query/field_id');
    const [after] = query.cursor ? decodeCursor(query.cursor, [{ type: 'bigint' }]) : ['0'];
    const limit = query.limit ?? 50;
    const { rows } = await this.db.raw(
      `${CHOICES_CTE}
       SELECT r.id, r.number::text AS number, lab.labels, lnk.linked
         FROM ?? r
        CROSS JOIN LATERAL (SELECT coalesce(array_agg(c.label ORDER BY c.ord), '{}') AS labels, coalesce(array_agg(DISTINCT lower(c.label)), '{}') AS keys
                              FROM c WHERE c.id = ANY(${cmp.ids})) lab
        CROSS JOIN LATERAL (SELECT coalesce(json_agg(json_build_object('id', t.id, 'title', ${titleSql(cmp.link.options)}) ORDER BY j.created_at, t.id), '[]'::json) AS linked,
                                   coalesce(array_agg(DISTINCT ${cmp.titleKey('t')}) FILTER (WHERE ${cmp.titleKey('t')} IS NOT NULL), '{}') AS keys
                              ${linkedRows(cmp.link, 'r')}) lnk
        WHERE r.deleted_at IS NULL AND r.number > ?::bigint AND lab.keys IS DISTINCT FROM lnk.keys
        ORDER BY r.number
        LIMIT ?`,
      [...cmp.choices, tableNameOf(cmp.mine), after, limit + 1],
    );
    const page = (rows as Array<{ id: string; number: string; labels: string[]; linked: Array<{ id: string; title: string | null }> }>).slice(0, limit);
    const targets = await this.targetsByLabel(this.db, cmp, page.flatMap((r) => r.labels));
    const data = page.map((row): DriftItem => {
      const titles = new Set(row.linked.map((l) => key(l.title ?? '')));
      const labels = new Set(row.labels.map(key));
      return {
        record_id: row.id,
        labels: row.labels,
        linked: row.linked,
        missing: row.labels.filter((label) => !titles.has(key(label))).map((label) => ({ label, record_id: targets.get(key(label)) ?? null })),
        extra: row.linked.filter((l) => !labels.has(key(l.title ?? ''))),
      };
    });
    return {
      field_id: cmp.field.id,
      link_field_id: cmp.link.id,
      data,
      next_cursor: rows.length > limit ? encodeCursor([page[page.length - 1].number]) : null,
    };
  }

  /**
   * Links each drifting record (or each of `record_ids`) to the records its labels name, and with
   * `unlink_extra` unlinks the records no label names — all in one transaction. What cannot be
   * linked is reported, not refused: a label naming no record, a record the relation allows one
   * link for, a `to` record linked to another `from` record already.
   */
  async bulkLink(principal: UserPrincipal, access: WorkspaceAccess, relationId: string, body: BulkLinkBody): Promise<BulkLinkResult> {
    const relation = await this.relations.findVisible(principal, access, relationId);
    return inTransaction(this.db, async (trx) => {
      const cmp = await this.compare(trx, relation, body.field_id, '/field_id');
      await this.requireEditor(principal, access, cmp.mine, trx);
      // Holds the select field's database at its schema version, like any record write.
      await this.records.open(trx, access.workspaceId, cmp.mine);
      const o = cmp.link.options;
      const { mine: mineEnd, theirs: theirEnd } = linkEnds(o);
      const onlyIds = body.record_ids ? ' AND r.id = ANY(?::uuid[])' : '';
      const only = body.record_ids ? [body.record_ids] : [];
      const junction = junctionNameOf(relation.id);
      const removed: Pair[] = [];
      if (body.unlink_extra) {
        const { rows } = await trx.raw(
          `${CHOICES_CTE}
           DELETE FROM ?? j USING ?? r, ?? t
            WHERE j.${mineEnd} = r.id AND t.id = j.${theirEnd} AND t.deleted_at IS NULL AND r.deleted_at IS NULL${onlyIds}
              AND NOT EXISTS (SELECT 1 FROM c WHERE c.id = ANY(${cmp.ids}) AND lower(c.label) = ${cmp.titleKey('t')})
           RETURNING j.from_id, j.to_id`,
          [...cmp.choices, junction, tableNameOf(cmp.mine), tableNameOf(cmp.theirs), ...only],
        );
        removed.push(...(rows as Pair[]));
      }
      const { rows: wanted } = await trx.raw(
        `${CHOICES_CTE}
         SELECT r.id AS record_id, c.label
           FROM ?? r JOIN c ON c.id = ANY(${cmp.ids})
          WHERE r.deleted_at IS NULL${onlyIds}
            AND NOT EXISTS (SELECT 1 FROM ?? j JOIN ?? t ON t.id = j.${theirEnd} AND t.deleted_at IS NULL WHERE j.${mineEnd} = r.id AND ${cmp.titleKey('t')} = lower(c.label))
          ORDER BY r.number, c.ord`,
        [...cmp.choices, tableNameOf(cmp.mine), ...only, junction, tableNameOf(cmp.theirs)],
      );
      const targets = await this.targetsByLabel(trx, cmp, (wanted as Array<{ label: string }>).map((w) => w.label));
      const skipped: SkippedLink[] = [];
      const pairs: Array<Pair & { label: string; record_id: string }> = [];
      const rows = wanted as Array<{ record_id: string; label: string }>;
      // The one side of a one-to-many: a record linked already, or given a link here, takes no other.
      const linkedOnce = o.many ? new Set<string>() : await this.withLiveLink(trx, cmp, [...new Set(rows.map((w) => w.record_id))]);
      for (const { record_id, label } of rows) {
        const target = targets.get(key(label));
        if (!target) skipped.push({ record_id, label, reason: 'no_match' });
        else if (linkedOnce.has(record_id)) skipped.push({ record_id, label, reason: 'one_link' });
        else {
          if (!o.many) linkedOnce.add(record_id);
          pairs.push({ ...(mineEnd === 'from_id' ? { from_id: record_id, to_id: target } : { from_id: target, to_id: record_id }), label, record_id });
        }
      }
      const added = await this.insert(trx, relation, o, pairs);
      const done = new Set(added.map((p) => `${p.from_id}/${p.to_id}`));
      const refused = pairs.filter((p) => !done.has(`${p.from_id}/${p.to_id}`));
      const owners = await this.liveParents(trx, relation, refused.map((p) => p.to_id));
      for (const p of refused) skipped.push({ record_id: p.record_id, label: p.label, reason: 'conflict', linked_record_id: owners.get(p.to_id) ?? null });
      const actor = { workspaceId: access.workspaceId, actorId: principal.user.id };
      if (removed.length > 0) await this.events.emit(trx, { name: 'links.removed', ...actor, payload: { relation_id: relation.id, links: removed } });
      if (added.length > 0) await this.events.emit(trx, { name: 'links.added', ...actor, payload: { relation_id: relation.id, links: added } });
      return { linked: added.length, unlinked: removed.length, skipped };
    });
  }

  /**
   * The select field (id or api_name) in either database of the relation (the `from` one first,
   * so a relation of a database with itself compares through its `from` link field).
   */
  private async compare(db: Db, relation: RelationRow, ref: string, pointer: string): Promise<Comparison> {
    const isSelect = (f: FieldRow) => f.type === 'single_select' || f.type === 'multi_select';
    const missing = `No single or multiple select field "${ref}" in either database of this relation.`;
    const onFrom = await findField(db, relation.from_database_id, ref, { where: isSelect, pointer, missing }).catch((err: unknown) => {
      if (err instanceof AppError) return undefined;
      throw err;
    });
    const field = onFrom ?? (await findField(db, relation.to_database_id, ref, { where: isSelect, pointer, missing }));
    const linkId = onFrom ? relation.from_field_id : relation.to_field_id;
    const link = (await this.fields.find<LinkOptions>(db, linkId))!;
    const col = `r."${field.column_name}"`;
    const choices = choicesOf(field);
    return {
      relation,
      field,
      link,
      mine: field.database_id,
      theirs: link.options.target_database_id,
      ids: field.type === 'multi_select' ? col : `ARRAY[${col}]`,
      titleKey: (alias) => `lower(${sqlTrim(titleSql(link.options, alias))})`,
      choices: [choices.map((c) => c.id), choices.map((c) => c.label)],
    };
  }

  /** The live record of T each label names by title (ignoring case and outer spaces); the oldest when several do. */
  private async targetsByLabel(db: Db, cmp: Comparison, labels: string[]): Promise<Map<string, string>> {
    const keys = [...new Set(labels.map(key))];
    if (keys.length === 0) return new Map();
    const { rows } = await db.raw(
      `SELECT DISTINCT ON (k) ${cmp.titleKey('t')} AS k, t.id FROM ?? t WHERE t.deleted_at IS NULL AND ${cmp.titleKey('t')} = ANY(?::text[]) ORDER BY k, t.number`,
      [tableNameOf(cmp.theirs), keys],
    );
    return new Map((rows as Array<{ k: string; id: string }>).map((r) => [r.k, r.id]));
  }

  /** The records of S among `ids` linked to a live record already. */
  private async withLiveLink(db: Db, cmp: Comparison, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const { mine, theirs } = linkEnds(cmp.link.options);
    const { rows } = await db.raw(`SELECT DISTINCT j.${mine} AS id FROM ?? j JOIN ?? t ON t.id = j.${theirs} AND t.deleted_at IS NULL WHERE j.${mine} = ANY(?::uuid[])`, [
      junctionNameOf(cmp.relation.id),
      tableNameOf(cmp.theirs),
      ids,
    ]);
    return new Set((rows as Array<{ id: string }>).map((r) => r.id));
  }

  /**
   * Adds the links that are free to add; in a one-to-many relation a hidden link of a `to` record
   * (its `from` in the trash) gives way, as when a link cell is written.
   */
  private async insert(trx: Db, relation: RelationRow, o: LinkOptions, pairs: Pair[]): Promise<Pair[]> {
    if (pairs.length === 0) return [];
    const junction = junctionNameOf(relation.id);
    if (o.kind === 'one_to_many') {
      await trx.raw(`DELETE FROM ?? j USING ?? f WHERE j.to_id = ANY(?::uuid[]) AND f.id = j.from_id AND f.deleted_at IS NOT NULL`, [junction, tableNameOf(relation.from_database_id), pairs.map((p) => p.to_id)]);
    }
    const { rows } = await trx.raw(`INSERT INTO ?? (from_id, to_id) SELECT * FROM unnest(?::uuid[], ?::uuid[]) ON CONFLICT DO NOTHING RETURNING from_id, to_id`, [
      junction,
      pairs.map((p) => p.from_id),
      pairs.map((p) => p.to_id),
    ]);
    return rows as Pair[];
  }

  /** One-to-many: the live `from` record each `to` record is linked to. */
  private async liveParents(db: Db, relation: RelationRow, toIds: string[]): Promise<Map<string, string>> {
    if (toIds.length === 0 || relation.kind !== 'one_to_many') return new Map();
    const { rows } = await db.raw(`SELECT j.to_id, j.from_id FROM ?? j JOIN ?? f ON f.id = j.from_id AND f.deleted_at IS NULL WHERE j.to_id = ANY(?::uuid[])`, [
      junctionNameOf(relation.id),
      tableNameOf(relation.from_database_id),
      toIds,
    ]);
    return new Map((rows as Pair[]).map((p) => [p.to_id, p.from_id]));
  }

  /** Links are written into the select field's database: `editor` there (403). Asked inside the write's transaction, which answers it. */
  private async requireEditor(principal: UserPrincipal, access: WorkspaceAccess, databaseId: string, trx: Db): Promise<void> {
    if ((await this.authz.holds(principal, access, 'database', databaseId, 'editor', trx)) !== 'held') throw forbidden('Linking records needs the editor role on the database of the select field.');
  }
}

/** A label or title as matching compares it: trimmed like labels are, ignoring case. */
function key(text: string): string {
  return trimText(text).toLowerCase();
}
