import { Type, type Static } from '../../core/schema.ts';
import { pageQuery } from '../../core/pagination.ts';

const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });
const Timestamp = Type.String({ format: 'date-time' });

export const PACK_FORMAT = 'tessera-pack';
export const PACK_FORMAT_VERSION = 1;
/** Semantic version, without build metadata. */
export const SEMVER_PATTERN = '^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(-[0-9A-Za-z.-]+)?$';

export const Ref = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.:-]+$', description: 'A local id, unique within its kind in the pack.' });

export const PackResourceSchema = Type.Object({ ref: Ref }, { additionalProperties: true, description: 'The owning plugin documents the rest.' });

export const Pack = Type.Object(
  {
    format: Type.Literal(PACK_FORMAT),
    format_version: Type.Integer({ description: `Only ${PACK_FORMAT_VERSION} is known.` }),
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    version: Type.String({ pattern: SEMVER_PATTERN, maxLength: 64, description: 'Semantic version (1.2.0).' }),
    requires: Type.Record(Type.String({ pattern: '^[a-z][a-z0-9-]*$', maxLength: 64 }), Type.String({ minLength: 1, maxLength: 100 }), {
      description: 'Plugin id → semver range of the versions the pack was made with.',
    }),
    resources: Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_]*$', maxLength: 64 }), Type.Array(PackResourceSchema, { maxItems: 10_000 }), {
      description: 'Kind → resources. Every kind is owned by a plugin (see GET /packs/kinds).',
    }),
  },
  { additionalProperties: false },
);
export type Pack = Static<typeof Pack>;

export const WorkspaceParams = Type.Object({ ws: Uuid('Workspace id') });
export const InstallParams = Type.Object({ ws: Uuid('Workspace id'), id: Uuid('Install id') });

export const ExportBody = Type.Object(
  {
    space_ids: Type.Optional(Type.Array(Uuid(), { minItems: 1, maxItems: 100, uniqueItems: true, description: 'Whole spaces: their folders, databases and all inside.' })),
    database_ids: Type.Optional(Type.Array(Uuid(), { minItems: 1, maxItems: 500, uniqueItems: true, description: 'Single databases (relations between two of them travel).' })),
    include_records: Type.Optional(Type.Boolean({ default: false, description: 'Also the records, as sample data (the same as naming `record` in `include`).' })),
    include: Type.Optional(
      Type.Array(Type.String({ pattern: '^[a-z][a-z0-9_]*$', maxLength: 64 }), { uniqueItems: true, maxItems: 50, description: 'Optional kinds to export too (`record`, or a kind a plugin adds, such as `hello_greeting`); see GET /packs/kinds.' }),
    ),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: "The pack's name; default: the first space's or database's." })),
    version: Type.Optional(Type.String({ pattern: SEMVER_PATTERN, maxLength: 64, default: '1.0.0' })),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
  },
  { additionalProperties: false, description: 'Name `space_ids` or `database_ids` (or both).' },
);
export type ExportBody = Static<typeof ExportBody>;

const Target = {
  space_id: Type.Optional(Uuid('An existing space to install into (the pack\'s spaces merge into it); default: new spaces.')),
  dry_run: Type.Optional(Type.Boolean({ default: false, description: 'Only say what would be made and every problem; nothing is written.' })),
};

export const InstallBody = Type.Object({ pack: Type.Unknown({ description: 'The pack (see the pack format).' }), ...Target }, { additionalProperties: false });
export type InstallBody = Static<typeof InstallBody>;

export const ApplyBody = Type.Object(Target, { additionalProperties: false });
export type ApplyBody = Static<typeof ApplyBody>;

export const PlanStep = Type.Object({ kind: Type.String(), ref: Type.String(), action: Type.Union([Type.Literal('create'), Type.Literal('reuse')]) });
export const Problem = Type.Object({ pointer: Type.String({ description: 'JSON pointer under `/pack` (`/pack/resources/field/2/type`): the pack in the body, or in the answer of GET /templates/{id} or GET /marketplace/packs/{id} for a template or a published pack.' }), detail: Type.String() });
export type Problem = Static<typeof Problem>;

export const DryRun = Type.Object({ plan: Type.Array(PlanStep), problems: Type.Array(Problem) });
export type DryRun = Static<typeof DryRun>;

export const CreatedByKind = Type.Record(Type.String(), Type.Array(Type.Object({ ref: Type.String(), id: Uuid() })));
export const InstallResult = Type.Object({
  install_id: Uuid(),
  created: CreatedByKind,
  secrets: Type.Optional(
    Type.Array(Type.Object({ kind: Type.String(), ref: Type.String(), id: Uuid(), secret: Type.String() }), {
      description: 'Secrets made for resources of the install (a webhook travels without its secret and gets a new one): shown here only, never again.',
    }),
  ),
});
export type InstallResult = Static<typeof InstallResult>;

export const PackInstall = Type.Object({
  id: Uuid(),
  workspace_id: Uuid(),
  name: Type.String(),
  version: Type.String(),
  source: Type.Object({
    type: Type.Union([Type.Literal('upload'), Type.Literal('template'), Type.Literal('marketplace')]),
    id: Type.Union([Type.String(), Type.Null()], { description: 'The template or published pack id.' }),
  }),
  created: CreatedByKind,
  installed_by: Type.Union([Uuid(), Type.Null()]),
  created_at: Timestamp,
});
export type PackInstall = Static<typeof PackInstall>;
export const PackInstallList = Type.Object({ data: Type.Array(PackInstall), next_cursor: Type.Union([Type.String(), Type.Null()]) });
export const InstallListQuery = pageQuery(200);

export const Uninstalled = Type.Object({
  removed: Type.Array(Type.Object({ kind: Type.String(), id: Uuid() })),
  kept: Type.Array(Type.Object({ kind: Type.String(), id: Uuid(), reason: Type.String() })),
});
export type Uninstalled = Static<typeof Uninstalled>;

export const PackKindInfo = Type.Object({ kind: Type.String(), plugin: Type.String(), after: Type.Array(Type.String()), optional: Type.Boolean() });
export const PackKindList = Type.Object({ data: Type.Array(PackKindInfo) });

export const TemplateParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z0-9][a-z0-9-]*$', description: 'Template id' }) });
export const ApplyParams = Type.Object({ ws: Uuid('Workspace id'), id: TemplateParams.properties.id });

export const TemplateSummary = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  categories: Type.Array(Type.String()),
  pack_version: Type.String({ description: "The version of the template's pack." }),
  plugin: Type.String({ description: 'The plugin that ships it.' }),
});
export type TemplateSummary = Static<typeof TemplateSummary>;
export const TemplateList = Type.Object({ data: Type.Array(TemplateSummary), next_cursor: Type.Null() });
export const TemplateDetail = Type.Composite([TemplateSummary, Type.Object({ pack: Pack })]);

export const PublishBody = Type.Object(
  {
    pack: Type.Unknown({ description: 'The pack (see the pack format); its `name` and `version` are what is published.' }),
    public: Type.Optional(Type.Boolean({ default: false, description: 'Also shown to anyone in the public gallery.' })),
  },
  { additionalProperties: false },
);
export type PublishBody = Static<typeof PublishBody>;

export const PublishedPack = Type.Object({
  id: Uuid(),
  name: Type.String(),
  version: Type.String(),
  description: Type.String(),
  publisher: Type.Object({ workspace_id: Uuid(), name: Type.String() }),
  public: Type.Boolean(),
  installs: Type.Integer({ minimum: 0 }),
  created_at: Timestamp,
});
export type PublishedPack = Static<typeof PublishedPack>;
export const PublishedPackDetail = Type.Composite([PublishedPack, Type.Object({ pack: Pack })]);
export const PublishedPackList = Type.Object({ data: Type.Array(PublishedPack), next_cursor: Type.Union([Type.String(), Type.Null()]) });
export const MarketplaceQuery = Type.Composite([
  pageQuery(200),
  Type.Object({ q: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Words of the name or the description, in any case.' })) }),
]);
export type MarketplaceQuery = Static<typeof MarketplaceQuery>;
export const PublishedParams = Type.Object({ id: Uuid('Published pack id') });
export const InstallPublishedParams = Type.Object({ ws: Uuid('Workspace id'), id: Uuid('Published pack id') });

export const GalleryItem = Type.Object({
  type: Type.Union([Type.Literal('template'), Type.Literal('pack')]),
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  version: Type.String(),
  categories: Type.Optional(Type.Array(Type.String())),
  publisher: Type.Optional(Type.Object({ workspace_id: Uuid(), name: Type.String() })),
  installs: Type.Optional(Type.Integer({ minimum: 0 })),
});
export const Gallery = Type.Object({ data: Type.Array(GalleryItem), next_cursor: Type.Null() });
