import { defineRoute, Reply, type AnyRouteDef } from '../../core/routes.ts';
import { pageOf, PageQuery } from '../../core/pagination.ts';
import { RecordParams } from './schemas.ts';
import { Watcher } from './watchers.schemas.ts';

const tags = ['records'];
const read = { role: 'member' as const, resource: { type: 'database', param: 'db' } };
const R = '/workspaces/{ws}/databases/{db}/records';
const NOT_LIVE = { description: 'No live record with this id in the database' };

/**
 * Watching is the caller's own subscription, not a change to the record: whoever can read the
 * record may watch it. It is still a write, so a token needs the `write` scope.
 */
export function watcherRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'PUT',
      path: `${R}/{id}/watch`,
      operationId: 'records.watch',
      summary: 'Watch a record',
      description: 'No body. 201 when the caller starts watching, 200 when it already did (nothing changes).',
      tags,
      auth: 'user',
      access: read,
      params: RecordParams,
      responses: {
        200: { description: 'Already watching', schema: Watcher },
        201: { description: 'Now watching', schema: Watcher },
        404: NOT_LIVE,
      },
      handler: async ({ principal, params, resolve }) => {
        const { watcher, created } = await resolve('records.watchers').watch(principal, params.ws, params.db, params.id);
        return new Reply(created ? 201 : 200, watcher);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: `${R}/{id}/watch`,
      operationId: 'records.unwatch',
      summary: 'Stop watching a record',
      description: 'Not watching it is no error (204 too).',
      tags,
      auth: 'user',
      access: read,
      params: RecordParams,
      responses: { 204: { description: 'Not watching' }, 404: NOT_LIVE },
      handler: ({ principal, params, resolve }) => resolve('records.watchers').unwatch(principal, params.ws, params.db, params.id),
    }),
    defineRoute({
      method: 'GET',
      path: `${R}/{id}/watchers`,
      operationId: 'records.watchers.list',
      summary: "A record's watchers",
      description: 'Longest-watching first; keyset paging: `?limit=` (≤ 200), `?cursor=`.',
      tags,
      auth: 'user',
      access: read,
      params: RecordParams,
      query: PageQuery,
      responses: { 200: { description: 'A page of watchers', schema: pageOf(Watcher) }, 404: NOT_LIVE },
      handler: ({ params, query, resolve }) => resolve('records.watchers').list(params.ws, params.db, params.id, query),
    }),
  ];
}
