import type { Readable } from 'node:stream';
import type { Context } from 'koa';
import { defineRoute, Reply, type AnyRouteDef } from '../../core/routes.ts';
import { ExportErrors } from './errors.ts';
import { CsvQuery, DatabaseParams, ExportListQuery, ExportParams, WorkspaceExport, WorkspaceExportList, WorkspaceParams } from './schemas.ts';

const tags = ['export'];
/** Whoever reads the database exports it: members, guests in their spaces, `read` tokens; 404 for who cannot see it. */
const reader = { role: 'member' as const, resource: { type: 'database', param: 'db' } };
const admin = { role: 'admin' as const };

/** `attachment` with the name as it is (RFC 6266 `filename*`, UTF-8) and an ASCII stand-in for old clients. */
export function attachment(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * A stream failing after the headers went (a page that cannot be read, a blob store gone) ends the connection, so the
 * client sees a broken transfer, never a file that looks complete; a compressing middleware in between would not pass
 * the error on by itself.
 */
function streamed(ctx: Context, stream: Readable): Readable {
  stream.once('error', (err) => ctx.res.destroy(err));
  return stream;
}

export function exportRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/databases/{db}/export.csv',
      operationId: 'export.csv',
      summary: 'Export a database or a view as CSV, streamed',
      description:
        'RFC 4180 (CRLF, quotes doubled, cells with commas, quotes or line breaks quoted), UTF-8 without BOM, a header row of field names. ' +
        "With `view_id`: the view's filter and sorts with the caller's override, and by default its visible fields in its order; without: manual order and every field. " +
        '`fields` names the columns (api_names or ids, comma-separated; with `view_id`, among the fields the view shows). Cells as their text form: select labels, link titles, user names, ISO dates, exact decimals. ' +
        "A cell a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a CR; a plain number aside) is written with a leading `'`, quoted; `formulas=raw` writes every cell as it is. Read one page at a time: memory stays flat whatever the size.",
      tags,
      auth: 'user',
      access: reader,
      params: DatabaseParams,
      query: CsvQuery,
      responses: {
        200: { description: 'The CSV', contentType: 'text/csv; charset=utf-8', headers: { 'Content-Disposition': { description: '`attachment` with the database (and view) name' } } },
        422: { description: 'An unknown field in `fields`, or one the view hides (named), or a view of another database' },
      },
      handler: async ({ principal, params, query, resolve, ctx }) => {
        const file = await resolve('export.csv').open(principal, params.ws, params.db, query);
        return new Reply(200, streamed(ctx, file.stream), { 'Content-Disposition': attachment(file.filename), 'Cache-Control': 'no-store' }, 'text/csv; charset=utf-8');
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/exports',
      operationId: 'export.workspace.create',
      summary: 'Export the whole workspace as a zip, made in the background',
      description:
        'Admins only. → 202 with the export; poll `GET …/exports/{id}` for its progress, then download `…/{id}/download`. The zip holds `manifest.json` ' +
        '(format and Tessera versions, the workspace, every entry with its size and SHA-256), `<database>.csv` and `<database>.schema.json` per database at its root, ' +
        'and what other plugins add (documents, record descriptions, attachments). Kept `retentionHours` (default 24).',
      tags,
      auth: 'user',
      access: admin,
      params: WorkspaceParams,
      status: 202,
      responses: { 202: { description: 'Queued', schema: WorkspaceExport } },
      handler: ({ principal, params, resolve }) => resolve('export.workspaces').request(principal, params.ws),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/exports',
      operationId: 'export.workspace.list',
      summary: "The workspace's exports, newest first",
      tags,
      auth: 'user',
      access: admin,
      params: WorkspaceParams,
      query: ExportListQuery,
      responses: { 200: { description: 'One page of exports', schema: WorkspaceExportList } },
      handler: ({ params, query, resolve }) => resolve('export.workspaces').list(params.ws, query),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/exports/{id}',
      operationId: 'export.workspace.get',
      summary: 'A workspace export: its status and progress',
      tags,
      auth: 'user',
      access: admin,
      params: ExportParams,
      responses: { 200: { description: 'The export', schema: WorkspaceExport } },
      handler: ({ params, resolve }) => resolve('export.workspaces').get(params.ws, params.id),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/exports/{id}/download',
      operationId: 'export.workspace.download',
      summary: 'Download a workspace export',
      description: '409 `export_not_ready` while queued or running (or failed), 410 `export_expired` once its zip was deleted.',
      tags,
      auth: 'user',
      access: admin,
      params: ExportParams,
      responses: { 200: { description: 'The zip', contentType: 'application/zip' } },
      errors: [ExportErrors.export_not_ready, ExportErrors.export_expired],
      handler: async ({ params, resolve, ctx }) => {
        const { stream, size } = await resolve('export.workspaces').download(params.ws, params.id);
        return new Reply(200, streamed(ctx, stream), { 'Content-Disposition': attachment(`workspace-export-${params.id}.zip`), 'Content-Length': String(size), 'Cache-Control': 'no-store' }, 'application/zip');
      },
    }),
  ];
}
