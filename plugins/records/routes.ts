import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { invalidField } from '../../core/errors.ts';
import { pageOf } from '../../core/pagination.ts';
import { Type } from '../../core/schema.ts';
import { ApiRecord, CreateRecordsBody, MAX_BULK, NumberParams, PatchRecordBody, RecordListQuery, RecordParams, RecordsParams } from './schemas.ts';
import { KernelErrors } from '../../core/errors.ts';
import { RecordErrors } from './errors.ts';
import { UsageErrors } from '../../core/usage.ts';

const tags = ['records'];
const resource = { type: 'database', param: 'db' };
const read = { role: 'member' as const, resource };
const write = { role: 'editor' as const, resource };
const R = '/workspaces/{ws}/databases/{db}/records';

export function recordRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: R,
      operationId: 'records.create',
      example: { values: { name: 'Acme renewal', amount: 12500 } },
      summary: 'Create a record, or up to 100 at once (all or none)',
      description:
        `\`{ values }\` → the record; \`{ records: [{ values }, …] }\` (1–${MAX_BULK}) → \`{ data }\`, in one transaction. ` +
        'New records go after the last one. Every invalid cell is reported, with a pointer at it, and nothing is stored.',
      tags,
      auth: 'user',
      access: write,
      params: RecordsParams,
      body: CreateRecordsBody,
      status: 201,
      responses: {
        201: { description: 'The record, or `{ data }` for `records`', schema: Type.Union([ApiRecord, Type.Object({ data: Type.Array(ApiRecord) })]) },
        422: { description: 'Unknown or read-only field, invalid cell, a user who is not a member, or more than 100 records' },
      },
      errors: [UsageErrors.plan_limit_exceeded, RecordErrors.link_conflict, RecordErrors.field_read_only],
      handler: async ({ principal, params, body, resolve }) => {
        const service = resolve('records.service');
        if (body.values !== undefined && body.records !== undefined) throw invalidField('/records', 'Send `values` for one record or `records` for several, not both.');
        if (body.records !== undefined) {
          const bases = body.records.map((_, i) => `/records/${i}`);
          return { data: await service.create(principal, params.ws, params.db, body.records.map((r) => r.values), bases) };
        }
        if (body.values === undefined) throw invalidField('/values', 'Send `values` for one record or `records` for several.');
        return (await service.create(principal, params.ws, params.db, [body.values], ['']))[0];
      },
    }),
    defineRoute({
      method: 'GET',
      path: R,
      operationId: 'records.list',
      summary: 'List live records in manual order',
      description:
        '`?q=` keeps records whose title contains the text (case-insensitive); `?view_id=` applies a view\'s filter and sorts. ' +
        'Keyset paging: `?limit=` (≤ 1000), `?cursor=` (bound to the same q and view_id). For filters and sorts, POST …/records/query.',
      tags,
      auth: 'user',
      access: read,
      params: RecordsParams,
      query: RecordListQuery,
      responses: { 200: { description: 'A page of records', schema: pageOf(ApiRecord) }, 422: { description: 'Unknown view, or a cursor of another query' } },
      handler: ({ principal, params, query, resolve }) => resolve('records.query').query(principal, params.ws, params.db, query, '/query'),
    }),
    defineRoute({
      method: 'GET',
      path: `${R}/by-number/{n}`,
      operationId: 'records.getByNumber',
      summary: 'Get a live record by its per-database number',
      tags,
      auth: 'user',
      access: read,
      params: NumberParams,
      responses: { 200: { description: 'The record', schema: ApiRecord }, 404: { description: 'No live record has that number' } },
      handler: ({ principal, params, resolve }) => resolve('records.service').getByNumber(principal, params.ws, params.db, params.n),
    }),
    defineRoute({
      method: 'GET',
      path: `${R}/{id}`,
      operationId: 'records.get',
      summary: 'Get a live record',
      tags,
      auth: 'user',
      access: read,
      params: RecordParams,
      responses: { 200: { description: 'The record', schema: ApiRecord } },
      handler: ({ principal, params, resolve }) => resolve('records.service').get(principal, params.ws, params.db, params.id),
    }),
    defineRoute({
      method: 'PATCH',
      path: `${R}/{id}`,
      operationId: 'records.update',
      example: { values: { amount: 13000 }, version: 3 },
      summary: "Change some of a record's cells",
      description: 'Cells not sent keep their values; `null` empties one. A stale `version` → 409 `version_conflict` with `current_version`, nothing changed.',
      tags,
      auth: 'user',
      access: write,
      params: RecordParams,
      body: PatchRecordBody,
      responses: { 200: { description: 'The record', schema: ApiRecord }, 409: { description: 'Stale `version` (`version_conflict`), with the version now stored; or a one-to-many link cell naming a record linked elsewhere (`linked_record_id`)', extensions: { current_version: Type.Integer() } } },
      errors: [KernelErrors.version_conflict, RecordErrors.link_conflict, RecordErrors.field_read_only],
      handler: ({ principal, params, body, resolve }) => resolve('records.service').update(principal, params.ws, params.db, params.id, body),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${R}/{id}`,
      operationId: 'records.delete',
      summary: 'Soft-delete a record',
      description: 'It disappears from every read (404); the row is kept for the trash.',
      tags,
      auth: 'user',
      access: write,
      params: RecordParams,
      responses: { 204: { description: 'Deleted' } },
      handler: ({ principal, params, resolve }) => resolve('records.service').delete(principal, params.ws, params.db, params.id),
    }),
  ];
}
