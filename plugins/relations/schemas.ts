import { documented, Type, type Static } from '../../core/schema.ts';
import { pageQuery } from '../../core/pagination.ts';
import { Field } from '../databases/public.ts';
import { AutoLinkRule } from './link-type.ts';

const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const FieldName = (description: string) => Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description });
const Kind = Type.Union([Type.Literal('one_to_many'), Type.Literal('many_to_many')], {
  description: '`one_to_many`: a `from` record links to many `to` records, a `to` record to at most one `from`; `many_to_many`: no limit either way.',
});

export const WorkspaceParams = Type.Object({ ws: Uuid('Workspace id') });
export const RelationParams = Type.Object({ ws: Uuid('Workspace id'), id: Uuid('Relation id') });
export const LinkParams = Type.Object({ ws: Uuid('Workspace id'), db: Uuid('Database id'), id: Uuid('Record id'), field: Type.String({ minLength: 1, description: "The link field's id or api_name." }) });
export const LinkTargetParams = Type.Composite([LinkParams, Type.Object({ target_id: Uuid('The linked record') })]);

export const Relation = Type.Object({
  id: Uuid(),
  workspace_id: Uuid(),
  kind: Kind,
  from_database_id: Uuid(),
  to_database_id: Uuid(),
  from_field: Field,
  to_field: Field,
  created_by: Type.Union([Uuid(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});
export type Relation = Static<typeof Relation>;

export const CreateRelationBody = Type.Object(
  {
    from_database_id: Uuid('Needs `creator` there.'),
    to_database_id: Uuid('Needs `creator` there; may be the same database.'),
    kind: Kind,
    from_field_name: FieldName('Name of the link field made in the `from` database (it links to `to` records).'),
    to_field_name: FieldName('Name of the link field made in the `to` database (it links back to `from` records).'),
  },
  { additionalProperties: false },
);
export type CreateRelationBody = Static<typeof CreateRelationBody>;

/** `confirm` is checked by the service, after the caller is known to be `creator` on both databases (403 first). */
export const DeleteRelationBody = documented(
  Type.Object(
    { confirm: Type.Optional(documented(Type.Boolean({ description: 'Must be `true`: the two link fields and every link go.' }), { also: { const: true } })) },
    { additionalProperties: false },
  ),
  { also: { required: ['confirm'] } },
);
export type DeleteRelationBody = Static<typeof DeleteRelationBody>;

export const RelationListQuery = Type.Composite([pageQuery(200), Type.Object({ database_id: Type.Optional(Uuid('Only relations with this database on either side.')) })]);
export type RelationListQuery = Static<typeof RelationListQuery>;

export const AddLinksBody = Type.Object(
  { record_ids: Type.Array(Uuid(), { minItems: 1, maxItems: 1000, uniqueItems: true, description: 'Live records of the target database; already linked ones are kept as they are.' }) },
  { additionalProperties: false },
);
export type AddLinksBody = Static<typeof AddLinksBody>;

const FieldRef = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });

export const RuleParams = Type.Composite([RelationParams, Type.Object({ rule: Uuid('Auto-link rule id') })]);

export const CreateAutoLinkRuleBody = Type.Object(
  {
    from_field_id: FieldRef('A field of the `from` database (id or api_name) with a text form: text, number, date, select, email, url, phone…'),
    to_field_id: FieldRef('A field of the `to` database (id or api_name), compared with `from_field_id` as text, trimmed, ignoring case.'),
    backfill: Type.Optional(Type.Boolean({ default: true, description: 'Also link the records that match now (once, in this request).' })),
  },
  { additionalProperties: false },
);
export type CreateAutoLinkRuleBody = Static<typeof CreateAutoLinkRuleBody>;

export const CreatedAutoLinkRule = Type.Composite([
  AutoLinkRule,
  Type.Object({ linked: Type.Integer({ minimum: 0, description: 'Links the backfill added (0 without it).' }) }),
]);
export type CreatedAutoLinkRule = Static<typeof CreatedAutoLinkRule>;

export const AutoLinkRuleList = Type.Object({ data: Type.Array(AutoLinkRule) });

export const DeleteAutoLinkRulesQuery = Type.Object(
  { rule_id: Type.Optional(Uuid('Only this rule; without it every rule of the relation goes.')) },
  { additionalProperties: false },
);
export type DeleteAutoLinkRulesQuery = Static<typeof DeleteAutoLinkRulesQuery>;

const SelectFieldRef = FieldRef('A single or multiple select field (id or api_name) of either database of the relation (the `from` one first); its labels are compared with the titles of the records linked through the link field of its database.');

export const DriftQuery = Type.Composite([pageQuery(200), Type.Object({ field_id: SelectFieldRef })]);
export type DriftQuery = Static<typeof DriftQuery>;

const LinkedTitle = Type.Object({ id: Uuid(), title: Type.Union([Type.String(), Type.Null()]) });

export const DriftItem = Type.Object({
  record_id: Uuid(),
  labels: Type.Array(Type.String(), { description: "The record's select labels, in the choices' order." }),
  linked: Type.Array(LinkedTitle, { description: 'The live records it is linked to, as its link cell shows them.' }),
  missing: Type.Array(
    Type.Object({ label: Type.String(), record_id: Type.Union([Uuid(), Type.Null()], { description: 'The live record whose title is the label (the oldest of several); null when none is.' }) }),
    { description: 'Labels no linked record has as title.' },
  ),
  extra: Type.Array(LinkedTitle, { description: 'Linked records whose title is no label of the record.' }),
});
export type DriftItem = Static<typeof DriftItem>;

export const Drift = Type.Object({
  field_id: Uuid('The select field compared.'),
  link_field_id: Uuid('The link field of its database.'),
  data: Type.Array(DriftItem),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
export type Drift = Static<typeof Drift>;

export const BulkLinkBody = Type.Object(
  {
    field_id: SelectFieldRef,
    record_ids: Type.Optional(Type.Array(Uuid(), { minItems: 1, maxItems: 1000, uniqueItems: true, description: 'Only these records of the select field’s database; without it every record.' })),
    unlink_extra: Type.Optional(Type.Boolean({ default: false, description: 'Also unlink the records no label names (a record with no label loses all its links).' })),
  },
  { additionalProperties: false },
);
export type BulkLinkBody = Static<typeof BulkLinkBody>;

export const SkippedLink = Type.Object({
  record_id: Uuid(),
  label: Type.String(),
  reason: Type.Union([Type.Literal('no_match'), Type.Literal('one_link'), Type.Literal('conflict')], {
    description: '`no_match`: no live record has the label as title; `one_link`: the record may link to one record only and has one; `conflict`: one-to-many, the target is linked to another record.',
  }),
  linked_record_id: Type.Optional(Type.Union([Uuid(), Type.Null()], { description: '`conflict`: the record the target is linked to.' })),
});
export type SkippedLink = Static<typeof SkippedLink>;

export const BulkLinkResult = Type.Object({
  linked: Type.Integer({ minimum: 0 }),
  unlinked: Type.Integer({ minimum: 0 }),
  skipped: Type.Array(SkippedLink),
});
export type BulkLinkResult = Static<typeof BulkLinkResult>;
