import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { pageOf, pageQuery } from '../../core/pagination.ts';
import { Type } from '../../core/schema.ts';
import { ApiRecord, MAX_BATCH, PatchRecordsBody, RecordError, RecordIdsBody, RecordsParams, TrashedRecord } from './schemas.ts';
import { UsageErrors } from '../../core/usage.ts';

const tags = ['records'];
const resource = { type: 'database', param: 'db' };
const read = { role: 'member' as const, resource };
const write = { role: 'editor' as const, resource };
const DB = '/workspaces/{ws}/databases/{db}';
const R = `${DB}/records`;
const Ids = Type.Object({ data: Type.Array(Type.String({ format: 'uuid' }), { description: 'The ids affected, in request order.' }) });

/** Batch PATCH, delete and restore of up to 200 records, and the trash. */
export function bulkRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'PATCH',
      path: R,
      operationId: 'records.updateMany',
      example: { records: [{ id: '0190c7a2-5b7e-7000-8000-000000000010', values: { amount: 900 } }] },
      summary: `Change cells of up to ${MAX_BATCH} records; failures reported per record`,
      description:
        '`{ records: [{ id, values }] }`: the valid updates are applied in one transaction and returned in `data`; each unknown or deleted id ' +
        '(`not_found`) or record with invalid cells (`validation_failed`, the detail names each field) is reported in `errors` and left unchanged. ' +
        'An id sent twice → 422.',
      tags,
      auth: 'user',
      access: write,
      params: RecordsParams,
      body: PatchRecordsBody,
      responses: {
        200: { description: 'Updated records and per-record errors', schema: Type.Object({ data: Type.Array(ApiRecord), errors: Type.Array(RecordError) }) },
        422: { description: `More than ${MAX_BATCH} records, none, or an id sent twice; nothing changed` },
      },
      handler: ({ principal, params, body, resolve }) => resolve('records.bulk').update(principal, params.ws, params.db, body),
    }),
    defineRoute({
      method: 'POST',
      path: `${R}/delete`,
      operationId: 'records.deleteMany',
      example: { ids: ['0190c7a2-5b7e-7000-8000-000000000010'] },
      summary: `Soft-delete up to ${MAX_BATCH} records`,
      description: 'Ids already deleted or unknown are skipped; `data` lists the ids deleted.',
      tags,
      auth: 'user',
      access: write,
      params: RecordsParams,
      body: RecordIdsBody,
      responses: { 200: { description: 'The ids deleted', schema: Ids } },
      handler: async ({ principal, params, body, resolve }) => ({ data: await resolve('records.bulk').delete(principal, params.ws, params.db, body.ids) }),
    }),
    defineRoute({
      method: 'POST',
      path: `${R}/restore`,
      operationId: 'records.restoreMany',
      example: { ids: ['0190c7a2-5b7e-7000-8000-000000000010'] },
      summary: `Restore up to ${MAX_BATCH} soft-deleted records`,
      description: 'Each goes back where it was (same position). Live or unknown (purged) ids are skipped; `data` lists the ids restored.',
      tags,
      auth: 'user',
      access: write,
      params: RecordsParams,
      body: RecordIdsBody,
      responses: { 200: { description: 'The ids restored', schema: Ids } },
      errors: [UsageErrors.plan_limit_exceeded],
      handler: async ({ principal, params, body, resolve }) => ({ data: await resolve('records.bulk').restore(principal, params.ws, params.db, body.ids) }),
    }),
    defineRoute({
      method: 'GET',
      path: `${DB}/trash`,
      operationId: 'records.trash.list',
      summary: 'Soft-deleted records, newest deletion first',
      description: 'Restorable for 30 days, then purged. Keyset paging: `?limit=` (≤ 1000), `?cursor=`.',
      tags,
      auth: 'user',
      access: read,
      params: RecordsParams,
      query: pageQuery(1000),
      responses: { 200: { description: 'A page of deleted records, each with `deleted_at`', schema: pageOf(TrashedRecord) } },
      handler: ({ principal, params, query, resolve }) => resolve('records.trash').list(principal, params.ws, params.db, query),
    }),
  ];
}
