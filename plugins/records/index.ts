import { definePlugin } from '../../core/plugin.ts';
import { bulkRoutes } from './bulk-routes.ts';
import { RecordBulkService } from './bulk.service.ts';
import { RecordService } from './records.service.ts';
import { TrashService } from './trash.service.ts';
import { recordRoutes } from './routes.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'records.service': RecordService;
    'records.bulk': RecordBulkService;
    'records.trash': TrashService;
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
    ctx.provide('bulk', (r) => new RecordBulkService(r('db'), r('events'), r('records.service')));
    ctx.provide('trash', (r) => new TrashService(r('db'), r('databases.fieldTypes'), r('records.service')));
    ctx.routes([...recordRoutes(), ...bulkRoutes()]);
    ctx.job({
      name: 'trash-purge',
      schedule: '43 3 * * *',
      handler: async () => {
        const purged = await ctx.resolve('records.trash').purge();
        if (purged > 0) ctx.logger.info({ purged }, 'records older than the trash period deleted');
      },
    });
  },
});
