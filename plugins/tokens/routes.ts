import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { notFound } from '../../core/errors.ts';
import { PageQuery, pageOf } from '../../core/pagination.ts';
import { CreatedToken, CreateTokenBody, TokenIdParams, TokenView } from './schemas.ts';

const tags = ['tokens'];

/** Managing tokens needs a session: a token must not mint or revoke tokens. */
export function tokenRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/me/tokens',
      operationId: 'tokens.create',
      example: { name: 'CI export', workspace_id: '0190c7a2-5b7e-7000-8000-000000000001', scope: 'read' },
      secret: true,
      summary: 'Create a personal access token for one workspace; the token is returned in this response only',
      description: 'The plaintext token is never stored, so this response cannot be replayed.',
      tags,
      auth: 'session',
      body: CreateTokenBody,
      status: 201,
      idempotency: false,
      responses: { 201: { description: 'The token, with its plaintext `token`', schema: CreatedToken } },
      handler: ({ user, body, resolve }) =>
        resolve('tokens.service').create(user.id, {
          name: body.name,
          workspaceId: body.workspace_id,
          scope: body.scope ?? 'read',
          allowRunButton: body.allow_run_button ?? false,
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/me/tokens',
      operationId: 'tokens.list',
      summary: 'List my personal access tokens, newest first (prefix only, never the token)',
      tags,
      auth: 'session',
      query: PageQuery,
      responses: { 200: { description: 'A page of tokens', schema: pageOf(TokenView) } },
      handler: ({ user, query, resolve }) => resolve('tokens.service').list(user.id, query),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/me/tokens/{id}',
      operationId: 'tokens.revoke',
      summary: 'Revoke a personal access token; it stops working on the next request',
      tags,
      auth: 'session',
      params: TokenIdParams,
      responses: { 204: { description: 'Revoked' } },
      handler: async ({ user, params, resolve }) => {
        if (!(await resolve('tokens.service').revoke(user.id, params.id))) throw notFound('No such token.');
      },
    }),
  ];
}
