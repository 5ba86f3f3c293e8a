import type { AccessGrant } from '../../core/authz.ts';
import type { Resolve } from '../../core/container.ts';
import type { Principal } from '../../core/principal.ts';
import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { pageOf } from '../../core/pagination.ts';
import {
  CreateDatabaseBody,
  Database,
  DatabaseListQuery,
  DatabaseParams,
  DatabaseSummary,
  DeleteDatabaseBody,
  PatchDatabaseBody,
  WorkspaceParams,
} from './schemas.ts';

const tags = ['databases'];
const resource = { type: 'database', param: 'db' };

/** A database with its fields as the caller is shown them (FieldSight). */
async function shownDatabase(resolve: Resolve, principal: Principal, grant: AccessGrant, database: Database): Promise<Database> {
  return { ...database, fields: await resolve('databases.fieldSight').shown(principal, grant.access, database.fields) };
}

export function databaseRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/databases',
      operationId: 'databases.create',
      example: { name: 'Deals', space_id: '0190c7a2-5b7e-7000-8000-000000000002' },
      summary: 'Create a database, with a title field, the system fields and a default grid view',
      description: 'Needs the `creator` role on the space (a grant there counts). An unknown `space_id` or `folder_id` → 422.',
      tags,
      auth: 'user',
      access: { role: 'guest' },
      params: WorkspaceParams,
      body: CreateDatabaseBody,
      status: 201,
      responses: { 201: { description: 'The database with its fields and views', schema: Database } },
      handler: ({ principal, access, body, resolve }) => resolve('databases.service').create(principal, access, body),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/databases',
      operationId: 'databases.list',
      summary: 'List the databases I can see, oldest first',
      description: 'A guest sees those in its spaces and those granted to it.',
      tags,
      auth: 'user',
      access: { role: 'guest' },
      params: WorkspaceParams,
      query: DatabaseListQuery,
      responses: { 200: { description: 'A page of databases', schema: pageOf(DatabaseSummary) } },
      handler: ({ principal, access, query, resolve }) => resolve('databases.service').listVisible(principal, access.access, query),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/databases/{db}',
      operationId: 'databases.get',
      summary: 'Get a database with its live fields and its views',
      tags,
      auth: 'user',
      access: { role: 'member', resource },
      params: DatabaseParams,
      responses: { 200: { description: 'The database', schema: Database } },
      handler: async ({ principal, access, params, resolve }) => shownDatabase(resolve, principal, access, await resolve('databases.service').get(params.ws, params.db)),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/workspaces/{ws}/databases/{db}',
      operationId: 'databases.update',
      example: { name: 'Open deals', description: 'Deals not yet won or lost' },
      summary: 'Rename, describe or move a database within its space',
      tags,
      auth: 'user',
      access: { role: 'creator', resource },
      params: DatabaseParams,
      body: PatchDatabaseBody,
      responses: { 200: { description: 'The database', schema: Database } },
      handler: async ({ principal, access, params, body, resolve }) => shownDatabase(resolve, principal, access, await resolve('databases.service').update(principal, params.ws, params.db, body)),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/workspaces/{ws}/databases/{db}',
      operationId: 'databases.delete',
      example: { confirm: 'Deals' },
      summary: 'Delete a database and all its records, permanently',
      description: '`confirm` must equal the database\'s name (422 otherwise). Its creator (still a `creator` there) or an admin.',
      tags,
      auth: 'user',
      access: { role: 'admin', resource, creatorRole: 'creator' },
      params: DatabaseParams,
      body: DeleteDatabaseBody,
      responses: { 204: { description: 'Deleted' } },
      handler: ({ principal, params, body, resolve }) => resolve('databases.service').delete(principal, params.ws, params.db, body.confirm),
    }),
  ];
}
