import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { QueryPage, RecordQuery, RecordsParams } from './schemas.ts';

/** POST R/query: reads with a body, since a filter AST does not fit a URL. */
export function queryRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/databases/{db}/records/query',
      operationId: 'records.query',
      example: { filter: { and: [{ field: 'stage', op: 'eq', value: 'Negotiation' }, { field: 'amount', op: 'gte', value: 1000 }] }, sorts: [{ field: 'amount', direction: 'desc' }], limit: 50 },
      summary: 'Query records: filter, sorts, title search, a view, chosen fields, keyset pages, counts',
      description:
        'Filter AST as in the `filter` property; sorts (≤ 5) put empty cells last and break ties by id; without sorts, manual order. ' +
        'The cursor is bound to the filter, sorts, q and view_id it was made with (another query → 422). Counts only when asked.',
      tags: ['records'],
      auth: 'user',
      readOnly: true,
      access: { role: 'member', resource: { type: 'database', param: 'db' } },
      params: RecordsParams,
      body: RecordQuery,
      responses: {
        200: { description: 'A page of records', schema: QueryPage },
        422: { description: 'Unknown field or view, an op that does not fit the field, a bad value, or a cursor of another query — each with a pointer' },
      },
      handler: ({ principal, params, body, resolve }) => resolve('records.query').query(principal, params.ws, params.db, body, ''),
    }),
  ];
}
