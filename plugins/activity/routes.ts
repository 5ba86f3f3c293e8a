import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { pageOf } from '../../core/pagination.ts';
import { Entry, RecordActivityQuery, RecordParams, WorkspaceActivityQuery, WorkspaceParams } from './schemas.ts';

const tags = ['activity'];
const NEWEST_FIRST = 'Newest first; keyset paging: `?limit=` (≤ 200, default 50), `?cursor=`.';

export function activityRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/databases/{db}/records/{id}/activity',
      operationId: 'activity.record',
      summary: "A record's activity",
      description:
        `Who changed what on the record: its creation, cell changes, deletion and restore, comments and description. ${NEWEST_FIRST} ` +
        'A record in the trash or purged from it keeps its trail. Field names are those of when the change was made.',
      tags,
      auth: 'user',
      access: { role: 'member', resource: { type: 'database', param: 'db' } },
      params: RecordParams,
      query: RecordActivityQuery,
      responses: {
        200: { description: 'A page of entries', schema: pageOf(Entry) },
        404: { description: 'No such record in this database, or a database the caller cannot see' },
      },
      handler: ({ principal, access, params, query, resolve }) => resolve('activity.service').forRecord(principal, access.access, params.db, params.id, query),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/activity',
      operationId: 'activity.workspace',
      summary: "The workspace's activity",
      description:
        `Entries of the databases the caller can see (a guest: those of its spaces and grants), narrowed by \`database_id\`, \`actor_id\` and \`type\`. ${NEWEST_FIRST} ` +
        'Field entries (`field.*`) are written from the databases plugin\'s events, shortly after the change commits.',
      tags,
      auth: 'user',
      access: { role: 'guest' },
      params: WorkspaceParams,
      query: WorkspaceActivityQuery,
      responses: { 200: { description: 'A page of entries', schema: pageOf(Entry) } },
      handler: ({ principal, access, query, resolve }) => resolve('activity.service').forWorkspace(principal, access.access, query),
    }),
  ];
}
