import { defineRoute, type AnyRouteDef } from 'tessera/routes';
import { PageQuery } from 'tessera/pagination';
import { HelloErrors } from './errors.ts';
import { CreateGreetingBody, Greeting, GreetingList, GreetingParams, WorkspaceParams } from './schemas.ts';

/** The resource type this plugin answers `auth.locate` for. */
export const GREETING = 'hello.greeting';
const greeting = { type: GREETING, param: 'id' };

/**
 * Routes as data: the router authenticates, checks `access` against the caller's role in the workspace (404 when it
 * cannot see the workspace or the greeting, 403 when its role is too weak), validates with these schemas, and the
 * OpenAPI document lists them with the codes named in `errors`. Handlers only call the service.
 */
export function greetingRoutes(): AnyRouteDef[] {
  const tags = ['hello'];
  return [
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/hello/greetings',
      operationId: 'hello.greetings.list',
      summary: 'List the greetings of a workspace, newest first',
      description: 'Members and above; guests, who see only their spaces, do not see workspace-wide greetings.',
      tags,
      auth: 'user',
      access: { role: 'member' },
      params: WorkspaceParams,
      query: PageQuery,
      responses: { 200: { description: 'One page of greetings', schema: GreetingList } },
      handler: ({ params, query, resolve }) => resolve('hello.greetings').list(params.ws, query),
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/hello/greetings',
      operationId: 'hello.greetings.create',
      example: { name: 'Ada' },
      summary: 'Greet someone in a workspace',
      tags,
      auth: 'user',
      access: { role: 'member' },
      params: WorkspaceParams,
      body: CreateGreetingBody,
      status: 201,
      responses: { 201: { description: 'The stored greeting', schema: Greeting } },
      errors: [HelloErrors.already_greeted],
      handler: ({ user, params, body, resolve }) => resolve('hello.greetings').create(params.ws, user.id, body.name),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/hello/greetings/{id}',
      operationId: 'hello.greetings.get',
      summary: 'Get a greeting',
      tags,
      auth: 'user',
      access: { role: 'member', resource: greeting },
      params: GreetingParams,
      responses: { 200: { description: 'The greeting', schema: Greeting } },
      handler: ({ params, resolve }) => resolve('hello.greetings').get(params.ws, params.id),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/workspaces/{ws}/hello/greetings/{id}',
      operationId: 'hello.greetings.delete',
      summary: 'Delete a greeting: its author, or an admin',
      tags,
      auth: 'user',
      access: { role: 'admin', resource: greeting, creatorRole: 'member' },
      params: GreetingParams,
      responses: { 204: { description: 'Deleted' } },
      handler: ({ user, params, resolve }) => resolve('hello.greetings').delete(params.ws, params.id, user.id),
    }),
  ];
}
