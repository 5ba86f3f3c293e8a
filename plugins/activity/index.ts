import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { ActivityService, appendStatement } from './activity.service.ts';
import { commentEntry, descriptionEntry, fieldEntry, recordEntries } from './capture.ts';
import { tapGdpr } from './gdpr.ts';
import { activityRoutes } from './routes.ts';
import { ActivityOptions } from './schemas.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'activity.service': ActivityService;
  }
}

export default definePlugin<ActivityOptions>({
  id: 'activity',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Records and their fields are what the trail is about; actors are named by auth's accounts.
  dependsOn: { auth: '^1.0.0', databases: '^1.0.0', records: '^1.0.0' },
  // Comments and descriptions join the trail when their plugins are on; personal data goes through gdpr's hooks.
  optionalDependsOn: { comments: '^1.0.0', documents: '^1.0.0', gdpr: '^1.0.0' },
  optionsSchema: ActivityOptions,
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  register(ctx) {
    if (ctx.has('gdpr')) tapGdpr(ctx);
    ctx.provide('service', (r) => new ActivityService(r('db'), r('database'), r('authz'), r('records.service'), r('databases.catalog'), r('databases.fieldTypes'), r('auth.users')));
    ctx.routes(activityRoutes());
    const service = () => ctx.resolve('activity.service');
    // User cells are named when read; a field reaching another database is hidden from who cannot see it.
    const typed = (type: string) => type === 'user' || !!ctx.resolve('databases.fieldTypes').get(type)?.reaches;
    // In the write's transaction: an entry commits with its change, and a failed write leaves none.
    ctx.hooksOf('records.changes').changed.tapPromise('activity', async (write) => {
      const statement = appendStatement(recordEntries(write, typed));
      if (statement) write.later(statement);
    });
    if (ctx.has('comments')) ctx.hooksOf('comments.changes').changed.tapPromise('activity', (e) => service().append(e.trx, [commentEntry(e)]));
    if (ctx.has('documents')) ctx.hooksOf('documents.writes').descriptionWritten.tapPromise('activity', (e) => service().append(e.trx, [descriptionEntry(e)]));
    ctx.hooksOf('databases.databases').deleted.tapPromise('activity', ({ trx, workspaceId, databaseId }) => service().forgetDatabase(trx, workspaceId, databaseId));
    // Field changes have no hook, only events: their entries are written after the change commits, shortly after.
    ctx.subscribe({
      name: 'field-changes',
      events: ['field.created', 'field.updated', 'field.deleted', 'field.restored'],
      handler: async (event) => {
        const entry = fieldEntry(event);
        if (entry && (await ctx.resolve('databases.catalog').names(ctx.db, [entry.database_id])).length > 0) await service().appendOnce(entry);
      },
    });
    ctx.job({
      name: 'retention-purge',
      schedule: '17 4 * * *',
      handler: async () => {
        const purged = await service().purge(ctx.options.retentionDays);
        if (purged > 0) ctx.logger.info({ purged }, 'activity entries older than the retention period deleted');
      },
    });
  },
});
