import { definePlugin } from '../../core/plugin.ts';
import { PluginsService } from './plugins.service.ts';
import { AdminUserService } from './users.service.ts';
import { AdminWorkspaceService } from './workspaces.service.ts';
import { StatsService } from './stats.service.ts';
import { adminRoutes } from './routes.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'admin.plugins': PluginsService;
    'admin.users': AdminUserService;
    'admin.workspaces': AdminWorkspaceService;
    'admin.stats': StatsService;
  }
}

export default definePlugin({
  id: 'admin',
  version: '1.0.0',
  kernel: '^1.0.0',
  // The accounts it administers are auth's.
  dependsOn: { auth: '^1.0.0' },
  // Workspace counts and the workspace routes exist only with workspaces; token counts only with tokens.
  optionalDependsOn: { tokens: '^1.0.0', workspaces: '^1.0.0' },
  register(ctx) {
    const hasWorkspaces = () => ctx.has('workspaces');
    // Asked on each use: an optional plugin may fail after this one registered.
    const workspaces = () => (hasWorkspaces() ? ctx.resolve('workspaces.service') : null);
    const members = () => (hasWorkspaces() ? ctx.resolve('workspaces.members') : null);
    const tokens = () => (ctx.has('tokens') ? ctx.resolve('tokens.service') : null);
    ctx.provide('plugins', (r) => new PluginsService(r('host')));
    ctx.provide('users', (r) => new AdminUserService(r('db'), r('events'), r('auth.users'), r('auth.sessions'), members));
    ctx.provide('workspaces', () => new AdminWorkspaceService(workspaces));
    ctx.provide('stats', (r) => new StatsService(r('database'), r('host'), r('auth.users'), r('auth.sessions'), tokens, workspaces));
    ctx.routes(adminRoutes({ workspaces: hasWorkspaces() }));
  },
});
