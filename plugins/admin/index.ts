import { definePlugin } from '../../core/plugin.ts';
import { PluginsService } from './plugins.service.ts';
import { adminRoutes } from './routes.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'admin.plugins': PluginsService;
  }
}

export default definePlugin({
  id: 'admin',
  version: '1.0.0',
  kernel: '^1.0.0',
  register(ctx) {
    ctx.provide('plugins', (r) => new PluginsService(r('kernel')));
    ctx.routes(adminRoutes());
  },
});
