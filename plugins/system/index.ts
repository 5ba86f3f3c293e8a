import { definePlugin } from '../../core/plugin.ts';
import { systemRoutes } from './routes.ts';

export default definePlugin({
  id: 'system',
  version: '1.0.0',
  kernel: '^1.0.0',
  register(ctx) {
    ctx.routes(systemRoutes);
  },
});
