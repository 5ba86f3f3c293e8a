import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { CsvExports } from './csv.service.ts';
import { createWorkspaceExportHooks } from './hooks.ts';
import { exportRoutes } from './routes.ts';
import { ExportOptions } from './schemas.ts';
import { WorkspaceExports } from './workspace-exports.service.ts';
import { tapGdpr } from './gdpr.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'export.csv': CsvExports;
    'export.workspaces': WorkspaceExports;
  }
}

const EXPORT_JOB = 'workspace';

export default definePlugin<ExportOptions>({
  id: 'export',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Records are read through the records plugin's export reader; databases, workspaces and accounts through their services.
  dependsOn: { auth: '^1.0.0', workspaces: '^1.0.0', databases: '^1.0.0', records: '^1.0.0' },
  // A view's filter, sorts and visible fields apply when the views plugin is on; exports answer to the gdpr plugin's hooks when it is on.
  optionalDependsOn: { views: '^1.0.0', gdpr: '^1.0.0' },
  optionsSchema: ExportOptions,
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  exports: ['export.csv'],
  register(ctx) {
    if (ctx.has('gdpr')) tapGdpr(ctx);
    const hooks = ctx.defineHooks('workspace', createWorkspaceExportHooks());
    const views = ctx.has('views') ? () => ctx.resolve('views.service') : () => undefined;
    ctx.provide('csv', (r) => new CsvExports(r('records.exportReader'), r('databases.service'), views, { records: ctx.options.pageSize ?? 500, view: ctx.options.viewPageSize ?? 2000 }));
    ctx.provide('workspaces', (r) => new WorkspaceExports({
      db: r('db'),
      blobs: r('blobs'),
      authz: r('authz'),
      users: r('auth.users'),
      workspaces: r('workspaces.service'),
      databases: r('databases.service'),
      csv: r('export.csv'),
      hooks,
      enqueue: (data, trx) => ctx.sendJob(EXPORT_JOB, data, trx),
      logger: ctx.logger,
      retentionHours: ctx.options.retentionHours ?? 24,
    }));
    ctx.job<{ id: string }>({ name: EXPORT_JOB, retryLimit: 0, handler: ({ id }) => ctx.resolve('export.workspaces').run(id) });
    ctx.job({
      name: 'expire',
      schedule: '17 * * * *',
      handler: async () => {
        const expired = await ctx.resolve('export.workspaces').expire();
        if (expired > 0) ctx.logger.info({ expired }, 'workspace exports past their retention deleted');
      },
    });
    ctx.hooksOf('workspaces.lifecycle').deleting.tapPromise('export', async ({ trx, workspaceId }) => void (await ctx.resolve('export.workspaces').forgetWorkspace(trx, workspaceId)));
    ctx.routes(exportRoutes());
  },
});
