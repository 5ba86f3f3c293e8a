import { defineRoute, Reply, type AnyRouteDef } from '../../core/routes.ts';
import { streamedUpload } from '../../core/streamed-uploads.ts';
import { DryRunResult, ImportCreated, ImportParams, ImportQueued, ImportStatus, ImportStatusParams, ImportUploadBody, RowError, type ImportOptions } from './schemas.ts';
import { Type } from '../../core/schema.ts';

const tags = ['import'];
const resource = { type: 'database', param: 'db' };

export function importRoutes(options: ImportOptions): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/databases/{db}/import',
      operationId: 'import.create',
      summary: 'Import a CSV file into a database (all or nothing), or dry-run it',
      description:
        'Multipart: `file` (CSV, UTF-8, a BOM allowed, a header row first), `mapping` (a JSON object: every CSV header → a field ' +
        'api_name or id, `{ "create": { "name", "type", "options"? } }` to create a field, or `null` to skip the column), `dry_run` ' +
        '(`true`/`false`, default false). Each cell goes through its field type\'s CSV grammar, then the checks of an API write: ' +
        'nothing is rounded, clamped or cut — leading zeros stay in text fields, a decimal a numeric field cannot keep exactly is refused. ' +
        'A dry run answers what would happen (`row` is the 1-based data row, the header not counted) and writes nothing, not even the new fields. ' +
        `A real import writes every row and its new fields in one transaction, or nothing (422 listing the first 100 problems). Files of more than ${options.syncMaxRows} data rows ` +
        'answer 202 and run as a job (`GET …/imports/{id}`). Editors import; a mapping that creates fields needs a creator. ' +
        `Files over ${options.maxBytes} bytes → 413; a file that is not UTF-8 text (binary, NUL bytes) → 415.`,
      tags,
      auth: 'user',
      access: { role: 'editor', resource },
      params: ImportParams,
      // The router hands multipart text parts over unchecked: `body` documents them, the service checks them.
      body: ImportUploadBody,
      bodyType: 'upload',
      bodyLimit: options.maxBytes,
      // A replayed import would be a second import: the answer is not stored for Idempotency-Key.
      idempotency: false,
      responses: {
        200: { description: 'The dry run', schema: DryRunResult },
        201: { description: 'Every row imported', schema: ImportCreated },
        202: { description: 'A large file: the import runs as a job', schema: ImportQueued },
        415: { description: 'The file is not UTF-8 text' },
        422: {
          description: 'A bad mapping (pointers `/mapping/<header>`: unmapped or unknown headers, unknown or read-only fields, two headers to one field), duplicate headers, malformed CSV, or invalid rows (`errors: [{ row, column, detail, pointer }]`; nothing stored)',
          extensions: { errors: Type.Array(Type.Union([RowError, Type.Object({ pointer: Type.String(), detail: Type.String() })])) },
        },
      },
      handler: async ({ principal, params, access, ctx, body, resolve }) => {
        const started = await resolve('import.service').start({
          principal,
          access,
          workspaceId: params.ws,
          databaseId: params.db,
          upload: streamedUpload(ctx, 'file'),
          fields: (body ?? {}) as Record<string, unknown>,
        });
        return new Reply(started.status, started.body);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/databases/{db}/imports/{id}',
      operationId: 'import.get',
      summary: 'The state and progress of an import',
      description:
        '`status`: queued, running, succeeded or failed; `rows` (null until counted) and `done` follow a running job; `created` is 0 until it ' +
        'succeeds (all or nothing); a failed one lists the first 100 problems in `errors`. Whoever reads the database reads its imports.',
      tags,
      auth: 'user',
      access: { role: 'member', resource },
      params: ImportStatusParams,
      responses: { 200: { description: 'The import', schema: ImportStatus } },
      handler: ({ params, resolve }) => resolve('import.runs').status(params.ws, params.db, params.id),
    }),
  ];
}
