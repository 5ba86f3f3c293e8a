import { countRows } from '../../core/db-count.ts';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWorkspaceLifecycle } from './hooks.ts';
import { definePlugin } from '../../core/plugin.ts';
import { invalidField } from '../../core/errors.ts';
import { MembershipSource } from './membership.ts';
import { WorkspaceService } from './workspaces.service.ts';
import { MemberService } from './members.service.ts';
import { workspaceRoutes } from './routes.ts';
import { InviteService } from './invites.service.ts';
import { inviteRoutes } from './invites.routes.ts';
import { GettingStartedService } from './getting-started.service.ts';
import { gettingStartedRoutes } from './getting-started.routes.ts';
import { STEP_EVENTS, stepsCompletedBy } from './getting-started.steps.ts';
import { tapGdpr } from './gdpr.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'workspaces.membership': MembershipSource;
    'workspaces.service': WorkspaceService;
    'workspaces.members': MemberService;
    'workspaces.invites': InviteService;
    'workspaces.gettingStarted': GettingStartedService;
  }
}

export default definePlugin({
  id: 'workspaces',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Tokens are bound to a workspace: creating one checks membership here.
  dependsOn: { auth: '^1.0.0', tokens: '^1.0.0' },
  // Invites are mailed when mail is enabled; without it, admins hand out the accept link.
  optionalDependsOn: { mail: '^1.0.0', gdpr: '^1.0.0' },
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  exports: ['workspaces.service', 'workspaces.members'],
  register(ctx) {
    // Personal data this plugin keeps is exported and erased through the gdpr plugin's hooks, when it is enabled.
    if (ctx.has('gdpr')) tapGdpr(ctx);
    const lifecycle = ctx.defineHooks('lifecycle', createWorkspaceLifecycle());
    ctx.provide('membership', (r) => new MembershipSource(r('database')));
    ctx.provide('service', (r) => new WorkspaceService(r('db'), lifecycle, r('events')));
    ctx.provide('members', (r) => new MemberService(r('database'), lifecycle, r('events'), r('authz'), r('tokens.service'), r('auth.users'), ctx.hooks.usage));
    ctx.provide('invites', (r) => new InviteService(r('db'), r('events'), r('authz'), r('workspaces.members'), r('workspaces.service'), () => (ctx.has('mail') ? ctx.resolve('mail.sender') : null)));
    ctx.provide('gettingStarted', (r) => new GettingStartedService(r('db')));

    let membership: MembershipSource | undefined;
    ctx.hooks.auth.workspaceAccess.membership.tapPromise('membership', (access, trx) => (membership ??= ctx.resolve('workspaces.membership')).fill(access, trx));

    // Held until the token is stored: a concurrent removal or workspace deletion then deletes the token too.
    ctx.hooksOf('tokens.creation').beforeCreate.tapPromise('membership', async ({ userId, workspaceId, trx }) => {
      const workspace = await trx('workspaces').where({ id: workspaceId }).forKeyShare().first('id');
      const member = workspace && (await trx('workspace_members').where({ workspace_id: workspaceId, user_id: userId }).forShare().first('role'));
      if (!member) throw invalidField('/workspace_id', 'You are not a member of this workspace.');
    });

    // Under `signUp: 'invite_only'`, an address with a pending invite to any workspace may make an account.
    ctx.hooksOf('auth.signUp').invited.tapPromise('pending-invites', async ({ email, trx }) => {
      const pending = await trx('workspace_invites').where({ status: 'pending' }).whereRaw('lower(email) = lower(?)', [email]).first('id');
      return pending ? true : undefined;
    });

    // Steps tick themselves for whoever did the thing (the event's actor).
    ctx.subscribe({
      name: 'getting-started',
      events: STEP_EVENTS,
      handler: async (event) => {
        if (!event.workspace_id || !event.actor_id) return;
        await ctx.resolve('workspaces.gettingStarted').complete(event.workspace_id, event.actor_id, stepsCompletedBy(event.name));
      },
    });

    // A plan's `members` limit counts every membership, guests too (core/usage.ts); `MemberService` raises and lowers it.
    ctx.hooks.usage.measure.for('members').tapPromise('workspaces', async ({ db, workspaceId }) => countRows(db('workspace_members').where({ workspace_id: workspaceId })));

    ctx.routes([...workspaceRoutes(), ...inviteRoutes(), ...gettingStartedRoutes()]);
  },
});
