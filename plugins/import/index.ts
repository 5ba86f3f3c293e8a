import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { ImportService } from './import.service.ts';
import { ImportRuns } from './runs.ts';
import { importRoutes } from './routes.ts';
import { tapGdpr } from './gdpr.ts';
import { ImportOptions } from './schemas.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'import.service': ImportService;
    'import.runs': ImportRuns;
  }
}

const RUN_JOB = 'run';
/** Past this, a queued or running import's job is taken for dead (a job expires after one hour). */
const STALE_HOURS = 2;

export default definePlugin<ImportOptions>({
  id: 'import',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Fields are made through the databases plugin and records written through the records plugin, which own their tables.
  dependsOn: { databases: '^1.0.0', records: '^1.0.0' },
  // Who sent each import is personal data, exported and erased through the gdpr plugin's hooks when it is on.
  optionalDependsOn: { gdpr: '^1.0.0' },
  optionsSchema: ImportOptions,
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  register(ctx) {
    if (ctx.has('gdpr')) tapGdpr(ctx);
    ctx.provide('runs', (r) => new ImportRuns(r('db'), r('database'), r('blobs'), ctx.logger));
    ctx.provide('service', (r) =>
      new ImportService(r('db'), r('import.runs'), r('blobs'), r('records.service'), r('databases.fields'), r('databases.fieldTypes'), r('authz'), (data, trx) => ctx.sendJob(RUN_JOB, data, trx), ctx.options, ctx.logger),
    );
    // One attempt: a second would find the file gone; a failure is reported on the import, which may be sent again.
    ctx.job<{ id: string }>({ name: RUN_JOB, retryLimit: 0, expireInSeconds: 60 * 60, handler: ({ id }) => ctx.resolve('import.service').run(id) });
    ctx.job({
      name: 'sweep',
      schedule: '*/15 * * * *',
      handler: async () => {
        const swept = await ctx.resolve('import.runs').sweep(STALE_HOURS);
        if (swept > 0) ctx.logger.warn({ swept }, 'imports whose job stopped marked failed');
      },
    });
    ctx.hooksOf('databases.databases').deleted.tapPromise('import', ({ trx, databaseId }) => ctx.resolve('import.runs').forgetDatabase(trx, databaseId));
    ctx.routes(importRoutes(ctx.options));
  },
});
