import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { notFound } from '../../core/errors.ts';
import { PageQuery, pageOf } from '../../core/pagination.ts';
import {
  CreateFolderBody,
  CreateSpaceBody,
  Folder,
  FolderParams,
  MAX_FOLDER_DEPTH,
  PatchFolderBody,
  PatchSpaceBody,
  Space,
  SpaceParams,
  WorkspaceParams,
} from './schemas.ts';

const space = { type: 'space', param: 'id' };
const folder = { type: 'folder', param: 'id' };

export function spaceRoutes(): AnyRouteDef[] {
  const tags = ['spaces'];
  return [
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/spaces',
      operationId: 'spaces.create',
      example: { name: 'Sales', description: 'Pipeline and accounts' },
      summary: 'Create a space',
      tags,
      auth: 'user',
      access: { role: 'creator' },
      params: WorkspaceParams,
      body: CreateSpaceBody,
      status: 201,
      responses: { 201: { description: 'The space', schema: Space } },
      handler: ({ principal, params, body, resolve }) => resolve('spaces.service').create(principal, params.ws, body),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/spaces',
      operationId: 'spaces.list',
      summary: 'List the spaces I can see, oldest first',
      description: 'Members and above see every space; a guest sees its own spaces and those it holds a grant on.',
      tags,
      auth: 'user',
      access: { role: 'guest' },
      params: WorkspaceParams,
      query: PageQuery,
      responses: { 200: { description: 'A page of spaces', schema: pageOf(Space) } },
      handler: ({ principal, query, access, resolve }) => resolve('spaces.service').listVisible(principal, access.access, query),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/spaces/{id}',
      operationId: 'spaces.get',
      summary: 'Get a space',
      tags,
      auth: 'user',
      access: { role: 'member', resource: space },
      params: SpaceParams,
      responses: { 200: { description: 'The space', schema: Space } },
      handler: async ({ params, resolve }) => {
        const found = await resolve('spaces.service').get(params.ws, params.id);
        if (!found) throw notFound();
        return found;
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/workspaces/{ws}/spaces/{id}',
      operationId: 'spaces.update',
      example: { name: 'Sales EMEA' },
      summary: 'Rename or describe a space',
      tags,
      auth: 'user',
      access: { role: 'creator', resource: space },
      params: SpaceParams,
      body: PatchSpaceBody,
      responses: { 200: { description: 'The space', schema: Space } },
      handler: ({ principal, params, body, resolve }) => resolve('spaces.service').update(principal, params.ws, params.id, body),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/workspaces/{ws}/spaces/{id}',
      operationId: 'spaces.delete',
      summary: 'Delete a space, its folders and the grants on it',
      description: 'Allowed to the space\'s creator or an admin. Guests lose it from their `space_ids`. Takes no confirmation, and its databases go with it, records included, for good.',
      tags,
      auth: 'user',
      access: { role: 'admin', resource: space, creatorRole: 'creator' },
      params: SpaceParams,
      responses: { 204: { description: 'Deleted' } },
      handler: ({ principal, params, resolve }) => resolve('spaces.service').delete(principal, params.ws, params.id),
    }),
  ];
}

export function folderRoutes(): AnyRouteDef[] {
  const tags = ['folders'];
  return [
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/spaces/{id}/folders',
      operationId: 'folders.create',
      example: { name: '2026' },
      summary: 'Create a folder in a space',
      description: `\`parent_id\` must be a folder of the same space; folders nest at most ${MAX_FOLDER_DEPTH} deep.`,
      tags,
      auth: 'user',
      access: { role: 'creator', resource: space },
      params: SpaceParams,
      body: CreateFolderBody,
      status: 201,
      responses: { 201: { description: 'The folder', schema: Folder } },
      handler: ({ principal, params, body, resolve }) => resolve('spaces.folders').create(principal, params.ws, params.id, body),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/spaces/{id}/folders',
      operationId: 'folders.list',
      summary: 'List the folders of a space, oldest first',
      description: 'A flat list; `parent_id` gives the tree.',
      tags,
      auth: 'user',
      access: { role: 'member', resource: space },
      params: SpaceParams,
      query: PageQuery,
      responses: { 200: { description: 'A page of folders', schema: pageOf(Folder) } },
      handler: ({ params, query, resolve }) => resolve('spaces.folders').list(params.ws, params.id, query),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/workspaces/{ws}/folders/{id}',
      operationId: 'folders.update',
      example: { name: 'Archive' },
      summary: 'Rename a folder, or move it (with its subfolders) within its space',
      description:
        `\`parent_id\`: a folder of the same space, not the folder itself nor one of its subfolders, or null for the top level; ` +
        `the moved subtree must stay within ${MAX_FOLDER_DEPTH} levels.`,
      tags,
      auth: 'user',
      access: { role: 'creator', resource: folder },
      params: FolderParams,
      body: PatchFolderBody,
      responses: { 200: { description: 'The folder', schema: Folder } },
      handler: ({ principal, params, body, resolve }) => resolve('spaces.folders').update(principal, params.ws, params.id, body),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/workspaces/{ws}/folders/{id}',
      operationId: 'folders.delete',
      summary: 'Delete a folder and its subfolders',
      tags,
      auth: 'user',
      access: { role: 'creator', resource: folder },
      params: FolderParams,
      responses: { 204: { description: 'Deleted' } },
      handler: ({ principal, params, resolve }) => resolve('spaces.folders').delete(principal, params.ws, params.id),
    }),
  ];
}
