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
  // Workspace counts and the workspace routes exist only with it.
  optionalDependsOn: { workspaces: '^1.0.0' },
  register(ctx) {
    const hasWorkspaces = () => ctx.has('workspaces');
    ctx.provide('plugins', (r) => new PluginsService(r('host')));
    ctx.provide('users', (r) => new AdminUserService(r('db'), r('events'), hasWorkspaces));
    ctx.provide('workspaces', (r) => new AdminWorkspaceService(r('db'), hasWorkspaces));
    ctx.provide('stats', (r) => new StatsService(r('database'), r('host'), hasWorkspaces));
    ctx.routes(adminRoutes({ workspaces: hasWorkspaces() }));
  },
});
