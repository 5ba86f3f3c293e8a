import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { notFound } from '../../core/errors.ts';
import { PageQuery, pageOf } from '../../core/pagination.ts';
import {
  CreateWorkspaceBody,
  Member,
  MemberParams,
  PatchMemberBody,
  PatchWorkspaceBody,
  Workspace,
  WorkspaceParams,
} from './schemas.ts';
import { WorkspaceErrors } from './errors.ts';

const tags = ['workspaces'];

export function workspaceRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/workspaces',
      operationId: 'workspaces.create',
      example: { name: 'Acme', description: 'Everything the Acme team tracks' },
      summary: 'Create a workspace; its creator becomes its admin',
      description: 'A personal access token is bound to one workspace and cannot create another: this needs a session.',
      tags,
      auth: 'session',
      body: CreateWorkspaceBody,
      status: 201,
      responses: { 201: { description: 'The workspace, with the caller\'s `role`', schema: Workspace } },
      handler: ({ principal, body, resolve }) => resolve('workspaces.service').create(principal, body),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces',
      operationId: 'workspaces.list',
      summary: 'List the workspaces I belong to (a token: only its own)',
      tags,
      auth: 'user',
      query: PageQuery,
      responses: { 200: { description: 'A page of workspaces, oldest membership first', schema: pageOf(Workspace) } },
      handler: ({ principal, query, resolve }) => resolve('workspaces.service').listMine(principal, query),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}',
      operationId: 'workspaces.get',
      summary: 'Get a workspace',
      tags,
      auth: 'user',
      access: { role: 'guest' },
      params: WorkspaceParams,
      responses: { 200: { description: 'The workspace, with the caller\'s `role`', schema: Workspace } },
      handler: ({ params, access, resolve }) => resolve('workspaces.service').get(params.ws, access.memberRole),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/workspaces/{ws}',
      operationId: 'workspaces.update',
      example: { name: 'Acme Inc.' },
      summary: 'Rename or describe a workspace',
      tags,
      auth: 'user',
      access: { role: 'admin' },
      params: WorkspaceParams,
      body: PatchWorkspaceBody,
      responses: { 200: { description: 'The workspace', schema: Workspace } },
      handler: ({ principal, params, body, access, resolve }) => resolve('workspaces.service').update(principal, params.ws, access.memberRole, body),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/workspaces/{ws}',
      operationId: 'workspaces.delete',
      summary: 'Delete a workspace and everything in it',
      description: 'Members, invites, spaces, grants, tokens bound to it and every plugin\'s content in it go; nothing of other workspaces is touched. Takes no body and no confirmation: the call is the confirmation, and it cannot be undone.',
      tags,
      auth: 'user',
      access: { role: 'admin' },
      params: WorkspaceParams,
      responses: { 204: { description: 'Deleted' } },
      handler: ({ principal, params, resolve }) => resolve('workspaces.service').delete(principal, params.ws),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/members',
      operationId: 'members.list',
      summary: 'List the members of a workspace',
      description: 'Guests cannot list members.',
      tags: ['members'],
      auth: 'user',
      access: { role: 'member' },
      params: WorkspaceParams,
      query: PageQuery,
      responses: { 200: { description: 'A page of members, oldest first', schema: pageOf(Member) } },
      handler: ({ params, query, resolve }) => resolve('workspaces.members').list(params.ws, query),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/workspaces/{ws}/members/{user_id}',
      operationId: 'members.update',
      example: { role: 'editor' },
      summary: 'Change a member\'s role, or a guest\'s spaces',
      description:
        '`guest` needs a non-empty `space_ids` (given here or already held); other roles take none. ' +
        'Demoting the last admin → 409.',
      tags: ['members'],
      auth: 'user',
      access: { role: 'admin' },
      params: MemberParams,
      body: PatchMemberBody,
      responses: { 200: { description: 'The member', schema: Member }, 409: { description: 'The last admin cannot be demoted' } },
      errors: [WorkspaceErrors.last_admin],
      handler: ({ principal, params, body, resolve }) => resolve('workspaces.members').update(principal, params.ws, params.user_id, body),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/workspaces/{ws}/members/{user_id}',
      operationId: 'members.remove',
      summary: 'Remove a member (admin), or leave the workspace (yourself)',
      description: 'Their tokens for this workspace stop working at once; their grants go. Removing the last admin → 409.',
      tags: ['members'],
      auth: 'user',
      access: { role: 'guest' },
      params: MemberParams,
      responses: { 204: { description: 'Removed' }, 409: { description: 'The last admin cannot be removed' } },
      errors: [WorkspaceErrors.last_admin],
      handler: async ({ principal, user, params, access, resolve }) => {
        if (params.user_id !== user.id) resolve('authz').demand(principal, access, 'admin');
        const members = resolve('workspaces.members');
        if (!(await members.get(params.ws, params.user_id))) throw notFound('No such member.');
        await members.remove(principal, params.ws, params.user_id);
      },
    }),
  ];
}
