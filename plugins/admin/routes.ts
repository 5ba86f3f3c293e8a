import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { pageOf } from '../../core/pagination.ts';
import { AdminUser, AdminWorkspace, IdParams, PatchUserBody, PluginList, Stats, UserListQuery, WorkspaceListQuery } from './schemas.ts';
import { AdminErrors } from './errors.ts';

const auth = 'instance_admin';

/** Instance administration; every route needs an instance admin's session. */
export function adminRoutes(opts: { workspaces: boolean }): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/admin/plugins',
      operationId: 'admin.plugins.list',
      summary: 'Every known plugin with its version and state (active, disabled, failed) and the failure if any',
      auth,
      responses: { 200: { description: 'All plugins, sorted by id', schema: PluginList } },
      handler: ({ resolve }) => resolve('admin.plugins').list(),
    }),
    defineRoute({
      method: 'GET',
      path: '/admin/users',
      operationId: 'admin.users.list',
      summary: 'Every user of the instance, newest first; `q` searches email and name',
      auth,
      query: UserListQuery,
      responses: { 200: { description: 'A page of users', schema: pageOf(AdminUser) } },
      handler: ({ query, resolve }) => resolve('admin.users').list(query),
    }),
    defineRoute({
      method: 'GET',
      path: '/admin/users/{id}',
      operationId: 'admin.users.get',
      summary: 'Get a user',
      auth,
      params: IdParams,
      responses: { 200: { description: 'The user', schema: AdminUser } },
      handler: ({ params, resolve }) => resolve('admin.users').get(params.id),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/admin/users/{id}',
      operationId: 'admin.users.update',
      example: { disabled: true },
      summary: 'Rename a user, make or unmake them instance admin, disable or re-enable them',
      description:
        'Disabling signs the user out everywhere and refuses their tokens from the very next request; re-enabling lets them sign in ' +
        'again and their tokens work again. Disabling yourself, removing your own instance-admin flag, or leaving the instance ' +
        'without an enabled instance admin → 409 `conflict`.',
      auth,
      params: IdParams,
      body: PatchUserBody,
      responses: { 200: { description: 'The user', schema: AdminUser }, 409: { description: 'The change would lock you or every admin out' } },
      errors: [AdminErrors.self_change, AdminErrors.last_instance_admin],
      handler: ({ principal, params, body, resolve }) => resolve('admin.users').update(principal, params.id, body),
    }),
    ...(opts.workspaces
      ? [
          defineRoute({
            method: 'GET',
            path: '/admin/workspaces',
            operationId: 'admin.workspaces.list',
            summary: 'Every workspace of the instance, newest first; `q` searches the name',
            auth,
            query: WorkspaceListQuery,
            responses: { 200: { description: 'A page of workspaces', schema: pageOf(AdminWorkspace) } },
            handler: ({ query, resolve }) => resolve('admin.workspaces').list(query),
          }),
          defineRoute({
            method: 'GET',
            path: '/admin/workspaces/{id}',
            operationId: 'admin.workspaces.get',
            summary: 'Get a workspace',
            auth,
            params: IdParams,
            responses: { 200: { description: 'The workspace', schema: AdminWorkspace } },
            handler: ({ params, resolve }) => resolve('admin.workspaces').get(params.id),
          }),
        ]
      : []),
    defineRoute({
      method: 'GET',
      path: '/admin/stats',
      operationId: 'admin.stats',
      summary: 'Instance totals: users, sessions, tokens, workspaces, plugins, database',
      auth,
      responses: { 200: { description: 'The totals', schema: Stats } },
      handler: ({ resolve }) => resolve('admin.stats').get(),
    }),
  ];
}
