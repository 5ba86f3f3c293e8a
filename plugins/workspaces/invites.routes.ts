import type { Context } from 'koa';
import { defineRoute, publicOrigin, type AnyRouteDef } from '../../core/routes.ts';
import { pageOf } from '../../core/pagination.ts';
import type { KernelConfig } from '../../core/config.ts';
import { WorkspaceParams } from './schemas.ts';
import { AcceptedInvite, CreateInviteBody, Invite, InviteListQuery, InviteParams, InviteTokenParams } from './invites.schemas.ts';
import type { LinkBase } from './invites.service.ts';
import { WorkspaceErrors } from './errors.ts';
import { UsageErrors } from '../../core/usage.ts';

const tags = ['invites'];

function linkBase(ctx: Context, config: KernelConfig): LinkBase {
  return { origin: publicOrigin(ctx, config) };
}

export function inviteRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/invites',
      operationId: 'invites.create',
      example: { email: 'grace@example.com', role: 'member' },
      secret: true,
      summary: 'Invite someone by email',
      description:
        '`guest` needs a non-empty `space_ids` (spaces of this workspace); other roles take none. Someone already a member → 409; ' +
        'a pending invite to the same address (any case) → 409 (resend that one instead). When the mail plugin is enabled the ' +
        'invitee is mailed the `accept_url`, once the invite is stored. Idempotency-Key is not honoured: a replay would have to ' +
        'store the link, and a repeated create already answers 409.',
      tags,
      auth: 'user',
      access: { role: 'admin' },
      params: WorkspaceParams,
      body: CreateInviteBody,
      status: 201,
      idempotency: false,
      responses: {
        201: { description: 'The pending invite, with its `accept_url` (shown here and on resend only)', schema: Invite },
        409: { description: 'Already a member, or an invite to this address is pending' },
      },
      errors: [WorkspaceErrors.invite_pending, WorkspaceErrors.already_member],
      handler: ({ principal, params, body, ctx, resolve }) => resolve('workspaces.invites').create(principal, params.ws, body, linkBase(ctx, resolve('config'))),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/invites',
      operationId: 'invites.list',
      summary: 'List invites, newest first',
      tags,
      auth: 'user',
      access: { role: 'admin' },
      params: WorkspaceParams,
      query: InviteListQuery,
      responses: { 200: { description: 'A page of invites (`accept_url` is always null here)', schema: pageOf(Invite) } },
      handler: ({ params, query, resolve }) => resolve('workspaces.invites').list(params.ws, query),
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/invites/{id}/resend',
      operationId: 'invites.resend',
      secret: true,
      summary: 'Issue a fresh link for a pending invite (the previous link stops working at once) and mail it again',
      tags,
      auth: 'user',
      access: { role: 'admin' },
      params: InviteParams,
      responses: {
        200: { description: 'The invite, with its new `accept_url`', schema: Invite },
        409: { description: 'The invite is not pending' },
      },
      errors: [WorkspaceErrors.invite_not_pending],
      handler: ({ principal, params, ctx, resolve }) => resolve('workspaces.invites').resend(principal, params.ws, params.id, linkBase(ctx, resolve('config'))),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/workspaces/{ws}/invites/{id}',
      operationId: 'invites.revoke',
      summary: 'Revoke an invite; its link stops working at once',
      description: 'Revoking a revoked invite changes nothing; an accepted invite → 409 (remove the member instead).',
      tags,
      auth: 'user',
      access: { role: 'admin' },
      params: InviteParams,
      responses: {
        200: { description: 'The invite, now `revoked`', schema: Invite },
        409: { description: 'The invite was accepted' },
      },
      errors: [WorkspaceErrors.invite_accepted],
      handler: ({ principal, params, resolve }) => resolve('workspaces.invites').revoke(principal, params.ws, params.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/invites/{token}/accept',
      operationId: 'invites.accept',
      summary: 'Accept an invite: join its workspace with its role (and a guest\'s spaces)',
      description:
        'The signed-in user\'s email must be the invite\'s (any case), else 403. An unknown, replaced or revoked token → 404. ' +
        'Accepting again answers the same membership; nothing is added twice. Needs a session: a personal access token is bound ' +
        'to a workspace and cannot join another.',
      tags,
      auth: 'session',
      params: InviteTokenParams,
      responses: {
        200: { description: 'The caller\'s membership, with the workspace id', schema: AcceptedInvite },
        403: { description: 'The invite was sent to another email address' },
        404: { description: 'No valid invite has this token' },
        409: { description: 'A guest invite whose spaces have all been deleted' },
      },
      errors: [UsageErrors.plan_limit_exceeded, WorkspaceErrors.invite_spaces_gone],
      handler: ({ principal, params, resolve }) => resolve('workspaces.invites').accept(principal, params.token),
    }),
  ];
}
