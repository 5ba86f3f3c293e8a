import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { tapGdpr } from './gdpr.ts';
import { versionRoutes } from './routes.ts';
import { RecordVersionsOptions } from './schemas.ts';
import { VersionService } from './versions.service.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'record-versions.service': VersionService;
  }
}

export default definePlugin<RecordVersionsOptions>({
  id: 'record-versions',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Versions are captured from, shown with and restored through the records service; user cells are named by auth's accounts.
  dependsOn: { auth: '^1.0.0', databases: '^1.0.0', records: '^1.0.0' },
  optionalDependsOn: { gdpr: '^1.0.0' },
  optionsSchema: RecordVersionsOptions,
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  register(ctx) {
    if (ctx.has('gdpr')) tapGdpr(ctx);
    ctx.provide('service', (r) => new VersionService(r('db'), r('records.service'), r('databases.catalog'), r('auth.users')));
    ctx.routes(versionRoutes());
    const service = () => ctx.resolve('record-versions.service');
    // In the write's transaction: a version commits with its change, and a failed write leaves none.
    ctx.hooksOf('records.changes').changed.tapPromise('record-versions', async (write) => service().captureWrite(write));
    ctx.hooksOf('databases.databases').deleted.tapPromise('record-versions', ({ trx, databaseId }) => service().forgetDatabase(trx, databaseId));
    ctx.job({
      name: 'retention-purge',
      schedule: '27 4 * * *',
      handler: async () => {
        const purged = await service().purge(ctx.options.retentionDays);
        if (purged > 0) ctx.logger.info({ purged }, 'record versions older than the retention period deleted');
      },
    });
  },
});
