import { Type, type Static } from '../../core/schema.ts';

const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });

export const ImportOptions = Type.Object(
  {
    maxBytes: Type.Integer({ minimum: 1024, default: 100 * 1024 * 1024, description: 'Largest CSV file accepted, in bytes (413 above).' }),
    syncMaxRows: Type.Integer({ minimum: 1, default: 10_000, description: 'Files with more data rows run as a job (202).' }),
    batchRows: Type.Integer({ minimum: 1, maximum: 10_000, default: 1000, description: 'Records written per INSERT (and per records.changes call).' }),
  },
  { additionalProperties: false, default: {} },
);
export type ImportOptions = Static<typeof ImportOptions>;

export const ImportParams = Type.Object({ ws: Uuid('Workspace id'), db: Uuid('Database id') });
export const ImportStatusParams = Type.Object({ ws: Uuid('Workspace id'), db: Uuid('Database id'), id: Uuid('Import id') });

/** The multipart parts, as the reference shows them; the service checks them (the router checks no multipart part). */
export const ImportUploadBody = Type.Object({
  file: Type.String({ format: 'binary', description: 'The CSV: UTF-8 (a BOM allowed), a header row first.' }),
  mapping: Type.String({
    contentMediaType: 'application/json',
    description: 'A JSON object, as text: every CSV header → a field api_name or id, `{ "create": { "name", "type", "options"? } }` to create a field, or `null` to skip the column.',
    examples: ['{"Name":"name","Amount":{"create":{"name":"Amount","type":"number"}},"Notes":null}'],
  }),
  dry_run: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { default: 'false', description: '`true`: answer what would happen and write nothing.' })),
});

/** A new field a mapping asks for. */
export const CreateTarget = Type.Object(
  {
    create: Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
        type: Type.String({ minLength: 1, maxLength: 50 }),
        options: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "The type's options; its defaults apply (a number field's precision is 0 unless given)." })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type CreateTarget = Static<typeof CreateTarget>;

export const RowError = Type.Object({
  row: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'The 1-based number of the data row (the header row is not counted); null for the file as a whole.' }),
  column: Type.Union([Type.String(), Type.Null()], { description: 'The CSV header of the cell; null when the row as a whole is wrong.' }),
  detail: Type.String(),
});
export type RowError = Static<typeof RowError>;

export const DETECTED_TYPES = ['text', 'long_text', 'number', 'date', 'datetime', 'checkbox', 'email', 'url', 'empty'] as const;
export type DetectedType = (typeof DETECTED_TYPES)[number];

export const DryRunResult = Type.Object({
  rows: Type.Integer({ description: 'Data rows in the file.' }),
  valid: Type.Integer({ description: 'Data rows that would be imported as they are.' }),
  errors: Type.Array(RowError, { description: 'The first 100 problems, in file order.' }),
  columns: Type.Array(
    Type.Object({
      header: Type.String(),
      field: Type.Union([Type.String(), Type.Null()], { description: 'The api_name the column goes to (for a field to create: the one it would get); null when skipped.' }),
      detected_type: Type.Union(DETECTED_TYPES.map((t) => Type.Literal(t)), {
        description: 'What the values look like: `number` only when every value is an exact decimal without leading zeros, `text` when one has leading zeros; `empty` when every cell is.',
      }),
      samples: Type.Array(Type.String(), { description: 'The first few non-empty values, as written.' }),
    }),
  ),
});
export type DryRunResult = Static<typeof DryRunResult>;

export const ImportCreated = Type.Object({ created: Type.Integer({ description: 'Records created.' }) });
export const ImportQueued = Type.Object({ import_id: Uuid('Follow it at GET …/databases/{db}/imports/{id}') });

export const IMPORT_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type ImportStatusName = (typeof IMPORT_STATUSES)[number];

export const ImportStatus = Type.Object({
  id: Uuid(),
  database_id: Uuid(),
  status: Type.Union(IMPORT_STATUSES.map((s) => Type.Literal(s))),
  rows: Type.Union([Type.Integer(), Type.Null()], { description: 'Data rows in the file; null until counted.' }),
  done: Type.Integer({ description: 'Data rows read and checked so far.' }),
  created: Type.Integer({ description: 'Records created: 0 until the import succeeds (all or nothing).' }),
  errors: Type.Array(RowError, { description: 'Why it failed: the first 100 problems.' }),
  created_at: Type.String({ format: 'date-time' }),
  finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type ImportStatus = Static<typeof ImportStatus>;
