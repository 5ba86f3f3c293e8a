import { Type, type Static } from '../../core/schema.ts';
import { pageOf, pageQuery } from '../../core/pagination.ts';

export const ExportOptions = Type.Object(
  {
    retentionHours: Type.Optional(Type.Integer({ minimum: 1, maximum: 8760, default: 24, description: 'Hours a finished workspace export is kept before its zip is deleted.' })),
    pageSize: Type.Optional(Type.Integer({ minimum: 100, maximum: 10000, default: 500, description: 'Records read per keyset page while a CSV is written (the README says why 500).' })),
    viewPageSize: Type.Optional(Type.Integer({ minimum: 100, maximum: 10000, default: 2000, description: 'Records per page of a CSV written through a view: a filter or sort no index serves is evaluated again for every page.' })),
  },
  { additionalProperties: false },
);
export type ExportOptions = Static<typeof ExportOptions>;

const Uuid = Type.String({ format: 'uuid' });

export const DatabaseParams = Type.Object({ ws: Uuid, db: Uuid });
export const WorkspaceParams = Type.Object({ ws: Uuid });
export const ExportParams = Type.Object({ ws: Uuid, id: Uuid });

export const CsvQuery = Type.Object(
  {
    view_id: Type.Optional(Type.String({ format: 'uuid', description: "A view of this database: its filter, sorts and the caller's override, and by default its visible fields in its order." })),
    fields: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 8192,
        description: 'Comma-separated api_names or ids of the columns, in this order (default: the view’s visible fields, or every field). An unknown one, or one the view hides → 422 naming it.',
      }),
    ),
    formulas: Type.Optional(
      Type.Unsafe<'neutralise' | 'raw'>({
        type: 'string',
        enum: ['neutralise', 'raw'],
        default: 'neutralise',
        description:
          "`neutralise` (default): a cell starting with `=`, `+`, `-`, `@`, a tab or a CR (a plain number aside) is written with a leading `'` and quoted, so a spreadsheet opening the file shows it as text instead of running it. `raw`: every cell exactly as its text form, for programs reading the file.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CsvQuery = Static<typeof CsvQuery>;

export const ExportStatus = Type.Union(['queued', 'running', 'succeeded', 'failed', 'expired'].map((s) => Type.Literal(s)));

export const WorkspaceExport = Type.Object({
  id: Uuid,
  workspace_id: Uuid,
  status: ExportStatus,
  progress: Type.Object({
    done: Type.Integer({ description: 'Entries of the zip written so far' }),
    total: Type.Integer({ description: 'Entries the zip will hold besides the manifest (0 until the job has counted them)' }),
  }),
  requested_by: Type.Union([Uuid, Type.Null()]),
  size: Type.Union([Type.Integer(), Type.Null()], { description: 'Bytes of the zip, once succeeded' }),
  download_url: Type.Union([Type.String(), Type.Null()], { description: 'A path under /api/v1 answering the zip, once succeeded' }),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the zip is deleted, once succeeded' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the export failed' }),
  created_at: Type.String({ format: 'date-time' }),
  finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type WorkspaceExport = Static<typeof WorkspaceExport>;

export const WorkspaceExportList = pageOf(WorkspaceExport);
export const ExportListQuery = pageQuery();
