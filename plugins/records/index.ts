import { definePlugin } from '../../core/plugin.ts';
import { RecordService } from './records.service.ts';
import { recordRoutes } from './routes.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'records.service': RecordService;
  }
}

export default definePlugin({
  id: 'records',
  version: '1.0.0',
  kernel: '^1.0.0',
  dependsOn: { databases: '^1.0.0', workspaces: '^1.0.0' },
  exports: ['records.service'],
  register(ctx) {
    ctx.provide('service', (r) => new RecordService(r('db'), r('events'), r('workspaces.service'), r('databases.fieldTypes')));
    ctx.routes(recordRoutes());
  },
});
