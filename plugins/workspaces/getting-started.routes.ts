import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { WorkspaceParams } from './schemas.ts';
import { GettingStarted, PatchGettingStartedBody } from './getting-started.schemas.ts';

const tags = ['getting-started'];

export function gettingStartedRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/getting-started',
      operationId: 'gettingStarted.get',
      summary: 'My onboarding checklist in this workspace',
      tags,
      auth: 'user',
      access: { role: 'guest' },
      params: WorkspaceParams,
      responses: { 200: { description: 'The checklist', schema: GettingStarted } },
      handler: ({ user, params, resolve }) => resolve('workspaces.gettingStarted').get(params.ws, user.id),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/workspaces/{ws}/getting-started',
      operationId: 'gettingStarted.update',
      example: { completed: { create_space: true } },
      summary: 'Tick or untick steps of my checklist, or dismiss it',
      description: 'Some steps also tick themselves when you do them (creating a space, inviting someone). An unknown step → 422.',
      tags,
      auth: 'user',
      access: { role: 'guest' },
      params: WorkspaceParams,
      body: PatchGettingStartedBody,
      responses: { 200: { description: 'The checklist', schema: GettingStarted } },
      handler: ({ user, params, body, resolve }) => resolve('workspaces.gettingStarted').update(params.ws, user.id, body),
    }),
  ];
}
