import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { pageOf } from '../../core/pagination.ts';
import { ApiRecord } from '../records/schemas.ts';
import { AddLinksBody, CreateRelationBody, DeleteRelationBody, LinkParams, LinkTargetParams, Relation, RelationListQuery, RelationParams, WorkspaceParams } from './schemas.ts';

const tags = ['relations'];
const member = { role: 'guest' as const };
const recordWrite = { role: 'editor' as const, resource: { type: 'database', param: 'db' } };
const R = '/workspaces/{ws}/databases/{db}/records';

export function relationRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/relations',
      summary: 'Relate two databases: a link field on each side, one junction table',
      description: 'Needs `creator` on both databases (403 otherwise); an unknown or invisible database → 422 at its pointer. The two databases may be the same one.',
      tags,
      auth: 'user',
      access: member,
      params: WorkspaceParams,
      body: CreateRelationBody,
      status: 201,
      responses: { 201: { description: 'The relation with its two link fields', schema: Relation }, 403: { description: 'Not creator on both databases' } },
      handler: ({ principal, access, body, resolve }) => resolve('relations.service').create(principal, access.access, body),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/relations',
      summary: 'List relations between databases you can see, oldest first',
      tags,
      auth: 'user',
      access: member,
      params: WorkspaceParams,
      query: RelationListQuery,
      responses: { 200: { description: 'A page of relations', schema: pageOf(Relation) } },
      handler: ({ principal, access, query, resolve }) => resolve('relations.service').list(principal, access.access, query),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/relations/{id}',
      summary: 'Get a relation',
      tags,
      auth: 'user',
      access: member,
      params: RelationParams,
      responses: { 200: { description: 'The relation', schema: Relation } },
      handler: ({ principal, access, params, resolve }) => resolve('relations.service').getVisible(principal, access.access, params.id),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/workspaces/{ws}/relations/{id}',
      summary: 'Delete a relation, its two link fields and every link',
      description: 'Body `{ "confirm": true }`, else 422. Needs `creator` on both databases.',
      tags,
      auth: 'user',
      access: member,
      params: RelationParams,
      body: DeleteRelationBody,
      responses: { 204: { description: 'Deleted' }, 422: { description: '`confirm` is not `true`' } },
      handler: ({ principal, access, params, body, resolve }) => resolve('relations.service').delete(principal, access.access, params.id, body.confirm),
    }),
    defineRoute({
      method: 'POST',
      path: `${R}/{id}/links/{field}`,
      summary: 'Link a record to records of the linked database',
      description:
        '`{ record_ids }`: live records of the other database; already linked ones stay. One-to-many: a record already linked to another one → 409 naming it ' +
        '(`linked_record_id`); the one side takes one record at most (422). Unknown, deleted or invisible records → 422 at `/record_ids/<i>`.',
      tags,
      auth: 'user',
      access: recordWrite,
      params: LinkParams,
      body: AddLinksBody,
      responses: { 200: { description: 'The record, with its links', schema: ApiRecord }, 409: { description: 'One-to-many: already linked elsewhere' } },
      handler: ({ principal, access, params, body, resolve }) => resolve('relations.links').add(principal, access.access, params.db, params.id, params.field, body.record_ids),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${R}/{id}/links/{field}/{target_id}`,
      summary: 'Unlink a record from one linked record',
      tags,
      auth: 'user',
      access: recordWrite,
      params: LinkTargetParams,
      responses: { 204: { description: 'Not linked (any more)' } },
      handler: ({ principal, access, params, resolve }) => resolve('relations.links').remove(principal, access.access, params.db, params.id, params.field, params.target_id),
    }),
  ];
}
