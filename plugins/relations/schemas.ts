import { Type, type Static } from '../../core/schema.ts';
import { pageQuery } from '../../core/pagination.ts';
import { Field } from '../databases/schemas.ts';

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

export const DeleteRelationBody = Type.Object(
  { confirm: Type.Optional(Type.Boolean({ description: 'Must be `true`: the two link fields and every link go.' })) },
  { additionalProperties: false },
);
export type DeleteRelationBody = Static<typeof DeleteRelationBody>;

export const RelationListQuery = Type.Composite([pageQuery(200), Type.Object({ database_id: Type.Optional(Uuid('Only relations with this database on either side.')) })]);
export type RelationListQuery = Static<typeof RelationListQuery>;

export const AddLinksBody = Type.Object(
  { record_ids: Type.Array(Uuid(), { minItems: 1, maxItems: 1000, uniqueItems: true, description: 'Live records of the target database; already linked ones are kept as they are.' }) },
  { additionalProperties: false },
);
export type AddLinksBody = Static<typeof AddLinksBody>;
