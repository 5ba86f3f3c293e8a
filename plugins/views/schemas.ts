import { Type, type Static } from '../../core/schema.ts';
import { FILTER_DESCRIPTION, FilterNode, Sort } from '../records/public.ts';

const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const Timestamp = Type.String({ format: 'date-time' });
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Not blank; surrounding spaces are trimmed.' });
const FieldName = Type.String({ minLength: 1, description: 'api_name (or id) of a live field.' });

export const VIEW_TYPES = ['grid', 'kanban', 'gallery', 'calendar', 'form'] as const;
export type ViewType = (typeof VIEW_TYPES)[number];

export const DatabaseParams = Type.Object({ ws: Uuid('Workspace id'), db: Uuid('Database id') });
export const ViewParams = Type.Object({ ws: Uuid('Workspace id'), db: Uuid('Database id'), view: Uuid('View id') });

export const Filter = Type.Union([FilterNode, Type.Null()], { description: `${FILTER_DESCRIPTION} \`null\`: no filter.` });
export const Sorts = Type.Array(Sort, { maxItems: 5, description: 'Up to 5 keys; empty cells last; `id` breaks ties. Empty: manual order.' });

/**
 * Per type: `calendar` places records on `date_field` (a date or date-time field; default the
 * first one); `form` keeps what the public form shows. Other types take none.
 */
export const ViewOptions = Type.Object(
  {
    date_field: Type.Optional(FieldName),
    title: Type.Optional(Type.String({ maxLength: 200, description: 'form: the heading shown above the form.' })),
    description: Type.Optional(Type.String({ maxLength: 10_000, description: 'form: text under the heading.' })),
    submit_label: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'form: the button\'s label.' })),
    success_message: Type.Optional(Type.String({ maxLength: 2_000, description: 'form: shown after a submission.' })),
    required_fields: Type.Optional(Type.Array(FieldName, { uniqueItems: true, maxItems: 500, description: 'form: fields a submission must fill.' })),
  },
  { additionalProperties: false, description: '`date_field` for calendar views; `title`, `description`, `submit_label`, `success_message`, `required_fields` for form views.' },
);
export type ViewOptions = Static<typeof ViewOptions>;

const settings = {
  filter: Filter,
  sorts: Sorts,
  hidden_fields: Type.Array(FieldName, { uniqueItems: true, maxItems: 500, description: 'Fields the view does not show (never the title field). Record queries still return every field.' }),
  field_order: Type.Array(FieldName, { uniqueItems: true, maxItems: 500, description: 'Display order; fields not listed follow in their own order.' }),
  group_by: Type.Union([FieldName, Type.Null()], { description: 'kanban: the single-select field whose options are the columns (required); grid: an optional grouping field.' }),
  options: ViewOptions,
};

export const View = Type.Object({
  id: Uuid(),
  database_id: Uuid(),
  name: Type.String(),
  type: Type.Union(VIEW_TYPES.map((t) => Type.Literal(t))),
  is_default: Type.Boolean({ description: 'Exactly one view of a database is the default.' }),
  position: Type.Integer(),
  filter: Filter,
  sorts: Sorts,
  hidden_fields: Type.Array(Type.String()),
  field_order: Type.Array(Type.String()),
  group_by: Type.Union([Type.String(), Type.Null()]),
  options: ViewOptions,
  published: Type.Boolean({ description: 'form views: whether a public link is live.' }),
  published_at: Type.Union([Timestamp, Type.Null()]),
  created_by: Type.Union([Uuid(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type View = Static<typeof View>;

/** The settings a create or a patch may send, each optional. */
const sentSettings = {
  filter: Type.Optional(settings.filter),
  sorts: Type.Optional(settings.sorts),
  hidden_fields: Type.Optional(settings.hidden_fields),
  field_order: Type.Optional(settings.field_order),
  group_by: Type.Optional(settings.group_by),
  options: Type.Optional(settings.options),
};

export const CreateViewBody = Type.Object(
  {
    name: Name,
    type: Type.Union(VIEW_TYPES.map((t) => Type.Literal(t))),
    ...sentSettings,
    is_default: Type.Optional(Type.Boolean({ description: 'true makes it the default (the previous default stops being one).' })),
  },
  { additionalProperties: false },
);
export type CreateViewBody = Static<typeof CreateViewBody>;

export const PatchViewBody = Type.Object(
  {
    name: Type.Optional(Name),
    ...sentSettings,
    is_default: Type.Optional(Type.Boolean({ description: 'true makes it the default; false is refused (422): make another view the default instead.' })),
  },
  { additionalProperties: false, minProperties: 1, description: 'A view keeps its type; send only what changes.' },
);
export type PatchViewBody = Static<typeof PatchViewBody>;

export const Override = Type.Object({
  view_id: Uuid(),
  filter: Filter,
  sorts: Type.Union([Sorts, Type.Null()], { description: 'Replace the view\'s sorts for you; `null`: the view\'s.' }),
  updated_at: Type.Union([Timestamp, Type.Null()], { description: 'null: you have no override.' }),
});
export type Override = Static<typeof Override>;

export const PutOverrideBody = Type.Object(
  {
    filter: Type.Optional(Filter),
    sorts: Type.Optional(Type.Union([Sorts, Type.Null()])),
  },
  { additionalProperties: false, description: 'Your own filter (ANDed with the view\'s) and sorts (instead of the view\'s); what is not sent is cleared.' },
);
export type PutOverrideBody = Static<typeof PutOverrideBody>;

export const Publication = Type.Object({
  token: Type.String({ description: 'Shown once; stored hashed. Publishing again replaces it.' }),
  url: Type.String({ format: 'uri', description: 'The public form: `<origin>/api/v1/public/forms/<token>`.' }),
});
export type Publication = Static<typeof Publication>;
