import { defineRoute, Reply, type AnyRouteDef } from '../../core/routes.ts';
import { pageOf } from '../../core/pagination.ts';
import { Favorite, FavoriteParams, FavoriteQuery, PutFavoriteBody, WorkspaceParams } from './schemas.ts';

const tags = ['favorites'];
const P = '/workspaces/{ws}/favorites';
/** Any member may keep favorites, a guest included; what they may star is decided per target. */
const anyMember = { role: 'guest' as const };

/**
 * Favorites are the caller's own, but starring is a write: a `read` token may list them and gets
 * 403 on PUT and DELETE (the default PAT scope of non-GET routes, `write`).
 */
export function favoriteRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: P,
      operationId: 'favorites.list',
      summary: "The caller's favorites in the workspace, newest first",
      description:
        'Only favorites whose target is live and visible to the caller now: a record in the trash, or a database a guest ' +
        'no longer sees, is left out (and back once restored or visible again). Narrow with `target_type`; keyset paging: `?limit=` (≤ 200), `?cursor=`.',
      tags,
      auth: 'user',
      access: anyMember,
      params: WorkspaceParams,
      query: FavoriteQuery,
      responses: { 200: { description: 'A page of favorites', schema: pageOf(Favorite) } },
      handler: ({ principal, access, query, resolve }) => resolve('favorites.service').list(principal, access.access, query),
    }),
    defineRoute({
      method: 'GET',
      path: `${P}/{id}`,
      operationId: 'favorites.get',
      summary: "One of the caller's favorites",
      tags,
      auth: 'user',
      access: anyMember,
      params: FavoriteParams,
      responses: {
        200: { description: 'The favorite', schema: Favorite },
        404: { description: "Not the caller's favorite, or its target is gone or no longer visible to the caller" },
      },
      handler: ({ principal, access, params, resolve }) => resolve('favorites.service').get(principal, access.access, params.id),
    }),
    defineRoute({
      method: 'PUT',
      path: P,
      operationId: 'favorites.set',
      example: { target_type: 'database', target_id: '0190c7a2-5b7e-7000-8000-000000000004' },
      summary: 'Star a record or a database',
      description:
        'One favorite per (user, target): 201 when new, 200 with the existing one when already starred (nothing changes). ' +
        'The target must be a live record or a database of this workspace that the caller can see (404 otherwise); a record is named by its id alone. ' +
        'Emits `favorite.added` when new.',
      tags,
      auth: 'user',
      access: anyMember,
      params: WorkspaceParams,
      body: PutFavoriteBody,
      responses: {
        200: { description: 'Already starred', schema: Favorite },
        201: { description: 'Starred', schema: Favorite },
        404: { description: 'No such live target in this workspace, or the caller cannot see it (never revealing that it exists)' },
      },
      handler: async ({ principal, access, body, resolve }) => {
        const { favorite, created } = await resolve('favorites.service').put(principal, access.access, body);
        return new Reply(created ? 201 : 200, favorite);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: `${P}/{id}`,
      operationId: 'favorites.delete',
      summary: 'Unstar',
      description: "Any of the caller's favorites, even one whose target is in the trash or hidden from them now. Emits `favorite.removed`.",
      tags,
      auth: 'user',
      access: anyMember,
      params: FavoriteParams,
      responses: { 204: { description: 'Unstarred' }, 404: { description: "Not the caller's favorite" } },
      handler: ({ principal, params, resolve }) => resolve('favorites.service').remove(principal, params.ws, params.id),
    }),
  ];
}
