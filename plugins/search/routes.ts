import { defineRoute, Reply, type AnyRouteDef } from '../../core/routes.ts';
import { SearchPage, SearchQuery, WorkspaceParams } from './schemas.ts';

export const PENDING_HEADER = 'Search-Rebuilds-Pending';
export const PENDING_SINCE_HEADER = 'Search-Rebuilds-Since';

export function searchRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/search',
      operationId: 'search.search',
      summary: 'Search records, databases, spaces and documents of the workspace',
      description:
        'Ranked by relevance, best first; only what the caller can see (a guest: its spaces and its grants). Records match on their title and every ' +
        'text-like field (text, long text, email, URL, phone, select labels); links, lookups and people are not searched. Words are matched whole, ' +
        'without stemming, in any language; the last word also as a prefix. Records are found as soon as their write commits; a database whose ' +
        `fields changed is read again in the background: until then \`${PENDING_HEADER}\` counts such databases (of those the caller sees) and \`${PENDING_SINCE_HEADER}\` ` +
        'says since when the oldest waits (its records are still found by their previous text).',
      tags: ['search'],
      auth: 'user',
      access: { role: 'guest' },
      params: WorkspaceParams,
      query: SearchQuery,
      responses: {
        200: {
          description: 'One page of hits',
          schema: SearchPage,
          headers: {
            [PENDING_HEADER]: { description: 'Databases the caller sees whose entries are being rebuilt (0: the index is current for it).' },
            [PENDING_SINCE_HEADER]: { description: 'When the oldest pending rebuild was asked for (ISO 8601); absent when none is pending.' },
          },
        },
        422: { description: '`q` empty or longer than 200 characters, an unknown type, or a cursor of another query' },
      },
      handler: async ({ principal, access, query, resolve }) => {
        const { pending, ...page } = await resolve('search.service').search(principal, access.access, query);
        const headers: Record<string, string> = { [PENDING_HEADER]: String(pending.count) };
        if (pending.since) headers[PENDING_SINCE_HEADER] = pending.since.toISOString();
        return new Reply(200, page, headers);
      },
    }),
  ];
}
