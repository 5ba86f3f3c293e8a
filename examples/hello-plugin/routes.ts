import { defineRoute, type RouteDef } from 'tessera/routes';
import { PageQuery } from 'tessera/pagination';
import { CreateGreetingBody, Greeting, GreetingList } from './schemas.ts';

/** Routes as data: the router validates with these schemas and the OpenAPI document lists them. */
export const helloRoutes: RouteDef<any, any, any>[] = [
  defineRoute({
    method: 'GET',
    path: '/hello/greetings',
    operationId: 'hello.greetings.list',
    summary: 'Greetings the current user has stored, newest first',
    auth: 'user',
    query: PageQuery,
    responses: { 200: { description: 'One page of greetings', schema: GreetingList } },
    handler: ({ user, query, resolve }) => resolve('hello.greetings').list(user.id, query),
  }),
  defineRoute({
    method: 'POST',
    path: '/hello/greetings',
    operationId: 'hello.greetings.create',
    example: { name: 'Ada' },
    summary: 'Greet someone; the greeting is stored for the current user',
    auth: 'user',
    body: CreateGreetingBody,
    status: 201,
    responses: { 201: { description: 'The stored greeting', schema: Greeting } },
    handler: ({ user, body, resolve }) => resolve('hello.greetings').create(user.id, body.name),
  }),
];
