import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { pageOf } from '../../core/pagination.ts';
import { Mention, MentionListQuery, WorkspaceParams } from './schemas.ts';

export function mentionRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/mentions',
      operationId: 'mentions.list',
      summary: 'Mentions of the caller, newest first',
      description:
        'Where others mentioned the caller: comments, record descriptions and documents, only in sources the caller can see now ' +
        '(a guest: its spaces; a record in the trash is left out). Keyset paging: `?limit=` (≤ 200), `?cursor=`; a page may hold fewer than `limit`.',
      tags: ['mentions'],
      auth: 'user',
      access: { role: 'guest' },
      params: WorkspaceParams,
      query: MentionListQuery,
      responses: { 200: { description: 'A page of mentions', schema: pageOf(Mention) } },
      handler: ({ principal, access, query, resolve }) => resolve('mentions.service').list(principal, access.access, query),
    }),
  ];
}
