import { defineRoute, Reply, type AnyRouteDef } from '../../core/routes.ts';
import { pageOf } from '../../core/pagination.ts';
import { Grant, GrantParams, GrantQuery, PutGrantBody, WorkspaceParams } from './schemas.ts';

const tags = ['access'];

export function accessRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/access',
      operationId: 'access.list',
      summary: 'List the grants of a workspace, oldest first',
      description: 'Narrow with `scope_type`, `scope_id` and `user_id`.',
      tags,
      auth: 'user',
      access: { role: 'admin' },
      params: WorkspaceParams,
      query: GrantQuery,
      responses: { 200: { description: 'A page of grants', schema: pageOf(Grant) } },
      handler: ({ params, query, resolve }) => resolve('access.grants').list(params.ws, query),
    }),
    defineRoute({
      method: 'PUT',
      path: '/workspaces/{ws}/access',
      operationId: 'access.grant',
      example: { scope_type: 'space', scope_id: '0190c7a2-5b7e-7000-8000-000000000002', user_id: '0190c7a2-5b7e-7000-8000-000000000003', role: 'editor' },
      summary: 'Grant a member a role on a space or database, replacing any role they had there',
      description:
        'One grant per (scope, user): 201 when it is new, 200 when it replaced (or already had) the role. ' +
        '`user_id` must be a member and `scope_id` a space or database of this workspace (422 otherwise). ' +
        'The effective role there is the strongest of the workspace role (unless guest) and the grants on the enclosing space and the database.',
      tags,
      auth: 'user',
      access: { role: 'admin' },
      params: WorkspaceParams,
      body: PutGrantBody,
      responses: {
        200: { description: 'The grant, whose role was replaced', schema: Grant },
        201: { description: 'The new grant', schema: Grant },
      },
      handler: async ({ principal, params, body, resolve }) => {
        const { grant, created } = await resolve('access.grants').put(principal, params.ws, body);
        return new Reply(created ? 201 : 200, grant);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/workspaces/{ws}/access/{id}',
      operationId: 'access.revoke',
      summary: 'Revoke a grant; it stops counting on the next request',
      tags,
      auth: 'user',
      access: { role: 'admin' },
      params: GrantParams,
      responses: { 204: { description: 'Revoked' } },
      handler: ({ principal, params, resolve }) => resolve('access.grants').revoke(principal, params.ws, params.id),
    }),
  ];
}
