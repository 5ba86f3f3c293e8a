import { inTransaction } from '../../core/db.ts';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { actionRoutes } from './actions.routes.ts';
import { RecordDuplicateService } from './duplicate.service.ts';
import { RecordMoveService } from './move.service.ts';
import { watcherRoutes } from './watchers.routes.ts';
import { WatcherService } from './watchers.service.ts';
import { bulkRoutes } from './bulk.routes.ts';
import { RecordBulkService } from './bulk.service.ts';
import { RecordService } from './records.service.ts';
import { TrashService } from './trash.service.ts';
import { recordRoutes } from './routes.ts';
import { QueryService } from './query.service.ts';
import { RecordExportReader } from './export-reader.ts';
import { queryRoutes } from './query.routes.ts';
import { createRecordChangeHooks, createRecordCommittedHooks, createRecordLifecycle, createRecordQueryHooks, createRecordViewHooks } from './hooks.ts';
import { tapPacks } from './pack.ts';
import { tapGdpr } from './gdpr.ts';
import { tellCommitted } from './committed.ts';
import { lowerUsage, usageWatched } from '../../core/usage.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'records.service': RecordService;
    'records.bulk': RecordBulkService;
    'records.trash': TrashService;
    'records.duplicate': RecordDuplicateService;
    'records.move': RecordMoveService;
    'records.watchers': WatcherService;
    'records.query': QueryService;
    'records.exportReader': RecordExportReader;
  }
}

export default definePlugin({
  id: 'records',
  version: '1.0.0',
  kernel: '^1.0.0',
  // User cells name accounts (auth) that must be members of the workspace (workspaces).
  dependsOn: { auth: '^1.0.0', databases: '^1.0.0', workspaces: '^1.0.0' },
  // Records travel in packs as optional sample data when the packs plugin is on. Personal data goes through the gdpr plugin's hooks when it is on.
  optionalDependsOn: { packs: '^1.0.0', gdpr: '^1.0.0' },
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  exports: ['records.service', 'records.bulk', 'records.query', 'records.watchers', 'records.exportReader'],
  register(ctx) {
    // Personal data this plugin keeps is exported and erased through the gdpr plugin's hooks, when it is enabled.
    if (ctx.has('gdpr')) tapGdpr(ctx);
    const lifecycle = ctx.defineHooks('lifecycle', createRecordLifecycle());
    const views = ctx.defineHooks('views', createRecordViewHooks());
    const queries = ctx.defineHooks('queries', createRecordQueryHooks());
    const changes = ctx.defineHooks('changes', createRecordChangeHooks());
    const committed = ctx.defineHooks('committed', createRecordCommittedHooks());
    // Fed from the writes' own events, in the transaction that fans them out; heard only while someone taps the hooks.
    ctx.tapFanOut({ name: 'committed', events: ['record.*'], active: () => committed.committed.isUsed(), handler: (trx, events) => tellCommitted(trx, committed, ctx.resolve('records.service'), events) });
    ctx.provide('service', (r) => new RecordService(r('db'), r('events'), r('databases.fieldTypes'), r('database'), r('caches'), r('authz'), r('databases.catalog'), r('auth.users'), r('workspaces.members'), lifecycle, changes, ctx.hooks.usage));
    ctx.provide('bulk', (r) => new RecordBulkService(r('db'), r('records.service')));
    ctx.provide('trash', (r) => new TrashService(r('db'), r('records.service'), r('records.watchers'), r('databases.catalog'), lifecycle));
    ctx.provide('duplicate', (r) => new RecordDuplicateService(r('db'), r('records.service')));
    ctx.provide('move', (r) => new RecordMoveService(r('db'), r('records.service')));
    ctx.provide('watchers', (r) => new WatcherService(r('db'), r('records.service'), r('authz'), r('auth.users')));
    ctx.provide('query', (r) => new QueryService(r('db'), views, queries, r('records.service'), r('database'), r('authz')));
    ctx.provide('exportReader', (r) => new RecordExportReader(r('db'), r('database'), views, r('records.service'), r('records.query')));
    ctx.routes([...queryRoutes(), ...recordRoutes(), ...bulkRoutes()]);
    ctx.routes([...actionRoutes(), ...watcherRoutes()]);
    if (ctx.has('packs')) tapPacks(ctx.hooksOf('packs.kinds'), { records: () => ctx.resolve('records.service') });
    // A member who leaves stops watching, in the removal's transaction (as the access plugin drops
    // their grants); one whose role or spaces change stops watching what they can no longer see.
    // A plan's `records` limit counts live records (core/usage.ts): counted here on request, and lowered when a database goes.
    ctx.hooks.usage.measure.for('records').tapPromise('records', ({ db, workspaceId }) => ctx.resolve('records.service').liveCount(db, workspaceId));
    ctx.hooksOf('databases.databases').deleting.tapPromise('records', async ({ trx, workspaceId, databaseId }) => {
      if (usageWatched(ctx.hooks.usage)) await lowerUsage(ctx.hooks.usage, trx, workspaceId, 'records', await ctx.resolve('records.service').liveCount(trx, workspaceId, databaseId));
    });
    const members = ctx.hooksOf('workspaces.lifecycle');
    members.memberRemoved.tapPromise('records', ({ trx, workspaceId, userId }) => ctx.resolve('records.watchers').forgetMember(trx, workspaceId, userId));
    members.memberChanged.tapPromise('records', ({ trx, workspaceId, userId }) => ctx.resolve('records.watchers').forgetUnseen(trx, workspaceId, userId));
    // A revoked grant (the access plugin, when enabled) may hide a database from a guest.
    ctx.subscribe({
      name: 'forget-unseen-watches',
      events: ['access.revoked'],
      handler: async (event) => {
        const { grant } = event.payload as { grant: { user_id: string } };
        await inTransaction(ctx.db, (trx) => ctx.resolve('records.watchers').forgetUnseen(trx, event.workspace_id!, grant.user_id));
      },
    });
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
