import { Type, type Static } from '../../core/schema.ts';
import { columnNameOf, defineFieldType, InvalidCell, type CellAggregate, type CellStore, type FieldMeta, type FieldSortKey, type WriteReaction } from '../databases/public.ts';
import { UUID_PATTERN } from '../../core/schema.ts';
import { acrossLinks, cellOf, linkedRows, oneLinkedKey, overLinked, reachesLinked, reachesOne, sortAliasOf } from './linked-fields.ts';

export const AutoLinkRule = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    from_field_id: Type.String({ format: 'uuid', description: 'A field of the `from` database.' }),
    to_field_id: Type.String({ format: 'uuid', description: 'A field of the `to` database.' }),
    created_by: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false, description: 'Links a `from` record and a `to` record whose two fields read alike (as text, trimmed, ignoring case).' },
);
export type AutoLinkRule = Static<typeof AutoLinkRule>;

export const LinkOptions = Type.Object(
  {
    relation_id: Type.String({ format: 'uuid' }),
    target_database_id: Type.String({ format: 'uuid', description: 'The database whose records this field links to.' }),
    target_title_field_id: Type.String({ format: 'uuid', description: "The target database's title field: what a link shows." }),
    side: Type.Union([Type.Literal('from'), Type.Literal('to')], { description: "This field's end of the relation." }),
    many: Type.Boolean({ description: 'Whether a record may link to several records through this field (false: the one side of a one-to-many).' }),
    kind: Type.Union([Type.Literal('one_to_many'), Type.Literal('many_to_many')], { description: "The relation's kind." }),
    auto_link: Type.Optional(Type.Array(AutoLinkRule, { description: "The relation's auto-link rules (the same on both link fields)." })),
  },
  { additionalProperties: false },
);
export type LinkOptions = Static<typeof LinkOptions>;

/** A link field's end of its junction table: its own record's column and the target's. */
export function linkEnds(options: Pick<LinkOptions, 'side'>): { mine: 'from_id' | 'to_id'; theirs: 'from_id' | 'to_id' } {
  return options.side === 'from' ? { mine: 'from_id', theirs: 'to_id' } : { mine: 'to_id', theirs: 'from_id' };
}

/** What a link shows of a linked record (alias `t` unless told): its title, as text. */
export const titleSql = (o: Pick<LinkOptions, 'target_title_field_id'>, alias = 't') => `${alias}."${columnNameOf(o.target_title_field_id)}"::text`;

/**
 * The live records linked to a record, oldest link first: `[{ id, title }]` (the title as text).
 * Links to records in the trash stay stored but are not shown.
 */
function linkCell(field: FieldMeta<LinkOptions>): CellAggregate {
  const o = field.options;
  return overLinked(field, `coalesce(json_agg(json_build_object('id', t.id, 'title', ${titleSql(o)}) ORDER BY j.created_at, t.id), '[]'::json)`);
}

/** At most this many links in one cell, as in the link route. */
const MAX_LINKS = 1000;

/** A link cell as written: the ids of the records to link, each once, in the order sent. */
function linkIn(value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && UUID_PATTERN.test(v))) throw new InvalidCell('Must be an array of record ids.');
  if (value.length > MAX_LINKS) throw new InvalidCell(`At most ${MAX_LINKS} links in one cell.`);
  return [...new Set((value as string[]).map((v) => v.toLowerCase()))];
}

/**
 * `link`: the records of another database (or the same one) this record is linked to, through a
 * relation. Made and removed with its relation (the relations plugin), never alone. A cell written
 * with the record replaces its links (`store`: the relation's junction table); `[]` or `null`
 * unlinks all. Records written are linked by the relation's auto-link rules (`reaction`).
 */
export function createLinkType(store: CellStore, reaction: WriteReaction<LinkOptions>) {
  return defineFieldType<LinkOptions>({
    type: 'link',
    cell: {
      schema: { type: 'array', items: { type: 'object', properties: { id: { type: 'string', format: 'uuid' }, title: { type: ['string', 'null'] } } } },
      example: [{ id: '0190c7a2-5b7e-7000-8000-000000000012', title: 'Acme' }],
      writes: 'An array of record ids of the linked database (at most 1,000); [] or null unlinks all.',
    },
    options: LinkOptions,
    managedBy: 'relations',
    select: (field, row) => cellOf(linkCell(field), row),
    aggregate: linkCell,
    /** By the title of the first linked record (the order the cell shows), as text fields sort. */
    sortKeyFor(field, row): FieldSortKey {
      const title = `lower(${titleSql(field.options)}) COLLATE "C"`;
      if (reachesOne(field.options)) return oneLinkedKey(field, row, { expr: title, type: 'text' }, sortAliasOf(field));
      return { expr: `(SELECT ${title} ${linkedRows(field, row)} ORDER BY j.created_at, t.id LIMIT 1)`, type: 'text' };
    },
    across: acrossLinks<LinkOptions>(false),
    reaches: reachesLinked<LinkOptions>(['side', 'many', 'kind']),
    store,
    reaction,
    fromApi: linkIn,
    toApi: (value) => value,
    emptyValue: [],
    ops: {},
    csv: {
      parse: () => {
        throw new InvalidCell('Links are not imported from CSV text.');
      },
      format: (value) => (value as Array<{ title: string | null }>).map((l) => l.title ?? '').join(', '),
    },
    convertsTo: {},
  });
}
