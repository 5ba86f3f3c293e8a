import type { Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import { dropMatchKeyIndex, matchKeyOf, tableNameOf, textFormSql, type FieldMeta, type FieldTypeRegistry, type ManagedFields, type WriteContext, type WriteReaction } from '../databases/public.ts';
import type { RecordService } from '../records/public.ts';
import { junctionNameOf } from './junction.ts';
import type { AutoLinkRule, LinkOptions } from './link-type.ts';

type Pair = { from_id: string; to_id: string };

/** What matching reads of a field: enough to say how its value reads as text. */
export interface MatchedField extends FieldMeta {
  column_name: string | null;
}

/**
 * A field's value as auto-link rules compare it: as its conversion to text writes it (a select's
 * label, a number's digits, a day's ISO date), trimmed and lower-cased; NULL when empty, so empty
 * cells never match. Undefined for types that have no text form (people, system fields).
 */
export function matchKeySql(types: FieldTypeRegistry, field: MatchedField, alias: string): string | undefined {
  const type = types.get(field.type);
  if (!type || !field.column_name) return undefined;
  const text = textFormSql(type, field, `${alias}."${field.column_name}"`);
  return text === undefined ? undefined : matchKeyOf(text);
}

/** One side of a match: a database's records table and the key of the rule's field in it. */
interface MatchSide {
  databaseId: string;
  field: MatchedField;
}

/**
 * Links the records of `mine` (those of `recordIds`, or every live one) to the live records of
 * `theirs` whose rule field matches, through the link field whose options are `o` (its side is
 * `mine`'s). Links that exist stay; in a one-to-many relation a `to` record that has a link (to a
 * live record or one in the trash) is left alone, and a `to` record matched by several `from`
 * records goes to the oldest. Returns the links added.
 */
export async function linkMatches(trx: Db, types: FieldTypeRegistry, o: LinkOptions, mine: MatchSide, theirs: MatchSide, recordIds: string[] | null): Promise<Pair[]> {
  const myKey = matchKeySql(types, mine.field, 'r');
  const theirKey = matchKeySql(types, theirs.field, 't');
  if (!myKey || !theirKey) return [];
  const [fromRow, toRow] = o.side === 'from' ? ['r', 't'] : ['t', 'r'];
  const oneParent = o.kind === 'one_to_many';
  const bindings: Array<string | string[]> = [junctionNameOf(o.relation_id), tableNameOf(mine.databaseId), tableNameOf(theirs.databaseId)];
  if (recordIds) bindings.push(recordIds);
  const { rows } = await trx.raw(
    `INSERT INTO ?? (from_id, to_id)
     SELECT ${oneParent ? `DISTINCT ON (${toRow}.id) ` : ''}${fromRow}.id, ${toRow}.id
       FROM ?? r JOIN ?? t ON ${theirKey} = ${myKey} AND t.deleted_at IS NULL AND t.id <> r.id
      WHERE r.deleted_at IS NULL${recordIds ? ' AND r.id = ANY(?::uuid[])' : ''}
      ${oneParent ? `ORDER BY ${toRow}.id, ${fromRow}.number, ${fromRow}.id` : ''}
     ON CONFLICT DO NOTHING
     RETURNING from_id, to_id`,
    bindings,
  );
  return rows as Pair[];
}

/**
 * The write reaction of link fields: a record created, or whose rule field is written, is linked
 * to the records of the other database that match it, by each auto-link rule of the relation
 * (kept in both link fields' options, so a write reads no rule: the cached fields carry them).
 */
export class AutoLinker implements WriteReaction<LinkOptions> {
  constructor(
    private readonly events: EventBus,
    private readonly types: FieldTypeRegistry,
    private readonly records: () => RecordService,
  ) {}

  watches(field: FieldMeta<LinkOptions>): string[] {
    return (field.options.auto_link ?? []).map((rule) => ruleEnds(rule, field.options).mine);
  }

  async react(trx: Db, field: FieldMeta<LinkOptions>, recordIds: string[], ctx: WriteContext): Promise<void> {
    const o = field.options;
    const mine = await this.records().readTable(ctx.workspaceId, ctx.databaseId);
    const theirs = await this.records().readTable(ctx.workspaceId, o.target_database_id);
    for (const rule of o.auto_link ?? []) {
      const ends = ruleEnds(rule, o);
      const myField = mine.field(ends.mine);
      const theirField = theirs.field(ends.theirs);
      // A rule whose field is in the trash rests until it is restored.
      if (!myField || !theirField) continue;
      const links = await linkMatches(trx, this.types, o, { databaseId: ctx.databaseId, field: myField }, { databaseId: o.target_database_id, field: theirField }, recordIds);
      if (links.length > 0) await this.events.emit(trx, { name: 'links.added', workspaceId: ctx.workspaceId, actorId: ctx.userId, payload: { relation_id: o.relation_id, rule_id: rule.id, links } });
    }
  }
}

/** A rule's field in the link field's own database and in the linked one. */
export function ruleEnds(rule: AutoLinkRule, o: Pick<LinkOptions, 'side'>): { mine: string; theirs: string } {
  return o.side === 'from' ? { mine: rule.from_field_id, theirs: rule.to_field_id } : { mine: rule.to_field_id, theirs: rule.from_field_id };
}

/** Drops the match-key indexes of the fields of `rules` that no rule of any relation uses any more. */
export async function releaseMatchIndexes(trx: Db, fields: ManagedFields, rules: AutoLinkRule[]): Promise<void> {
  const fieldIds = [...new Set(rules.flatMap((r) => [r.from_field_id, r.to_field_id]))];
  for (const id of fieldIds) {
    const uses = await fields.anyHolds(trx, 'link', 'auto_link', [{ from_field_id: id }, { to_field_id: id }]);
    const field = await fields.find(trx, id);
    if (!uses && field?.column_name) await dropMatchKeyIndex(trx, tableNameOf(field.database_id), field.column_name);
  }
}
