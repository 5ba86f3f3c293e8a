import type { Db } from '../../core/db.ts';
import { invalidField } from '../../core/errors.ts';
import { Type } from '../../core/schema.ts';
import { findField, tableNameOf, type Across, type CellAggregate, type FieldMeta, type FieldRow, type FieldSortKey, type OptionsWriter, type Reach } from '../databases/public.ts';
import type { TargetField } from '../records/public.ts';
import { junctionNameOf } from './junction.ts';
import { linkEnds, type LinkOptions } from './link-type.ts';

/**
 * What lookups, rollups and counts store: the link field they read through, and (filled in when
 * the field is made) its relation, end and linked database. `target_database_id` also tells the
 * databases plugin that a change to that database's fields concerns this one.
 */
export interface LinkedOptions {
  link_field_id: string;
  target_field_id?: string;
  relation_id?: string;
  side?: 'from' | 'to';
  target_database_id?: string;
  kind?: 'one_to_many' | 'many_to_many';
}

export const linkedOptionProperties = {
  link_field_id: Type.String({ minLength: 1, description: 'A link field of this database (id or api_name; stored as its id).' }),
  relation_id: Type.Optional(Type.String({ format: 'uuid', description: 'Filled in from the link field.' })),
  side: Type.Optional(Type.Union([Type.Literal('from'), Type.Literal('to')], { description: 'Filled in from the link field.' })),
  target_database_id: Type.Optional(Type.String({ format: 'uuid', description: 'Filled in from the link field.' })),
  kind: Type.Optional(Type.Union([Type.Literal('one_to_many'), Type.Literal('many_to_many')], { description: "Filled in from the link field: the relation's kind." })),
};

export const targetFieldProperty = {
  target_field_id: Type.String({ minLength: 1, description: 'A field of the linked database (id or api_name; stored as its id).' }),
};

/** What locates a link's junction and linked records: a link's own options, or a lookup's copy of them. */
type LinkEnd = Pick<LinkedOptions, 'relation_id' | 'side' | 'target_database_id' | 'kind'>;

/** The field a computed field reads across the link: what `databases.catalog.fieldRows` attached to it. */
export function targetOf(field: FieldMeta<any>): TargetField | undefined {
  return (field as { target?: TargetField }).target;
}

/** The SQL of a target field's value in the linked row `t`: its column or the system column it reads. */
export function targetColumn(target: TargetField): string | undefined {
  const column = target.column_name ?? target.fieldType.systemColumn;
  return column ? `t."${column}"` : undefined;
}

/** A field reading through a link: its own options or a lookup's copy of the link's, and whether its reader sees the linked database. */
type ThroughLink = Pick<FieldMeta<LinkEnd>, 'options' | 'unseen'>;

/**
 * `FROM … WHERE …` of the live records linked to the record aliased `row` (junction `j`, linked
 * row `t`); none for a reader who cannot see the linked database, so every cell, condition and
 * sort key built on it reads as an empty link.
 *
 * The linked row is fetched by its id for each link (a LATERAL subquery the planner may not flatten: `OFFSET 0`).
 * Joined plainly, a table whose statistics say it is nearly empty (filled since its last ANALYZE, or on PGlite, which
 * never analyses on its own) was read whole for every record and probed into the links: an export of 300 records with
 * 60 link fields took 15 s that way, 0.17 s fenced.
 */
export function linkedRows(field: ThroughLink, row: string): string {
  const o = field.options;
  const { mine, theirs } = linkEnds({ side: o.side! });
  const linked = `(SELECT * FROM "${tableNameOf(o.target_database_id!)}" t WHERE t.id = j.${theirs} AND t.deleted_at IS NULL OFFSET 0)`;
  const from = `FROM "${junctionNameOf(o.relation_id!)}" j CROSS JOIN LATERAL ${linked} t WHERE j.${mine} = ${row}.id`;
  return field.unseen ? `${from} AND false` : from;
}

/** Checks the link field (and the target field) the options name and fills in the link's facts. */
export async function resolveLinked<O extends LinkedOptions>(trx: Db, databaseId: string, options: O, writer: OptionsWriter, needsTarget: boolean): Promise<O & { target: FieldRow | null }> {
  const link = await findField(trx, databaseId, options.link_field_id, {
    where: (f) => f.type === 'link',
    pointer: '/options/link_field_id',
    missing: `No link field "${options.link_field_id}" in this database.`,
  });
  const lo = link.options as LinkOptions;
  // Before its fields are looked up: an error naming them would tell what the database holds.
  if (!(await writer.sees(lo.target_database_id))) throw invalidField('/options/link_field_id', 'This link leads to a database you cannot see.');
  const resolved = { ...options, link_field_id: link.id, relation_id: lo.relation_id, side: lo.side, target_database_id: lo.target_database_id, kind: lo.kind };
  if (!needsTarget) return { ...resolved, target: null };
  const ref = options.target_field_id ?? '';
  const target = await findField(trx, lo.target_database_id, ref, { pointer: '/options/target_field_id', missing: `No field "${ref}" in the linked database.` });
  return { ...resolved, target_field_id: target.id, target };
}

/** The alias of a field's joined sort key (oneLinkedKey): its own, so two such keys never clash. */
export const sortAliasOf = (field: Pick<FieldMeta, 'id'>) => `sk_${field.id.replace(/-/g, '')}`;

/** Whether a record reaches one record at most through this end: the `to` side of a one-to-many. */
export function reachesOne(o: LinkEnd): boolean {
  return o.kind === 'one_to_many' && o.side === 'to';
}

/**
 * `key` (SQL over the linked row `t`) of the one live record linked to the record aliased `row`
 * (reachesOne), as a LEFT JOIN of the links instead of a subquery per record: PostgreSQL may then
 * hash-join a million records with their links. A top-100 sort of 1,000,000 tasks by their
 * project's status took 3.8 s with a subquery per task, 0.38 s joined (EXPLAIN ANALYZE). It exposes `__rid`
 * and `__key` under `alias` only.
 */
export function oneLinkedKey(field: ThroughLink, row: string, key: FieldSortKey, alias: string): FieldSortKey {
  const o = field.options;
  const { mine, theirs } = linkEnds({ side: o.side! });
  return {
    expr: `"${alias}".__key`,
    type: key.type,
    join:
      `LEFT JOIN (SELECT j.${mine} AS __rid, ${key.expr} AS __key FROM "${junctionNameOf(o.relation_id!)}" j ` +
      `JOIN "${tableNameOf(o.target_database_id!)}" t ON t.id = j.${theirs} AND t.deleted_at IS NULL${field.unseen ? ' WHERE false' : ''}) AS "${alias}" ON "${alias}".__rid = ${row}.id`,
  };
}

/** `value`, an aggregate over the live records linked to a record (`j`, `t` as in linkedRows). */
export function overLinked(field: ThroughLink, value: string): CellAggregate {
  return { from: (row) => linkedRows(field, row), value };
}

/** The cell of `aggregate` for the record aliased `row`, as a scalar subquery. */
export function cellOf(aggregate: CellAggregate, row: string): string {
  return `(SELECT ${aggregate.value} ${aggregate.from(row)})`;
}

/** How filters reach linked records, for links (by record) and lookups (by the field they read). */
export function acrossLinks<O extends LinkEnd & { target_field_id?: string }>(lookup: boolean): Across<O> {
  return {
    database: (field) => field.options.target_database_id!,
    ...(lookup ? { field: (field: FieldMeta<O>) => field.options.target_field_id! } : {}),
    exists: (field, row, condition) => `EXISTS (SELECT 1 ${linkedRows(field, row)} AND (${condition}))`,
  };
}

/**
 * What links, lookups, rollups and counts reach: the linked database. Whoever cannot see it is
 * not told which database, relation or fields they read (`keep`: the options that name none).
 */
export function reachesLinked<O extends LinkEnd>(keep: ReadonlyArray<keyof O>): Reach<O> {
  return {
    database: (field) => field.options.target_database_id,
    unseenOptions: (options) => Object.fromEntries(keep.flatMap((k) => (k in options ? [[k, options[k]]] : []))) as Partial<O>,
  };
}
