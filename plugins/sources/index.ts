import { fileURLToPath } from 'node:url';
import type { Db } from '../../core/db.ts';
import { definePlugin } from '../../core/plugin.ts';
import { tapGdpr } from './gdpr.ts';
import { createSourceKindHooks } from './hooks.ts';
import { tapPacks } from './pack.ts';
import { SourceInputs } from './inputs.ts';
import { SourceKinds } from './kinds.ts';
import { sourceRoutes } from './routes.ts';
import { SourcePush } from './push.ts';
import { SyncRunner } from './runner.ts';
import { tick } from './schedule.ts';
import { SourcesOptions } from './schemas.ts';
import { SourceService } from './sources.service.ts';
import type { SourceRow } from './store.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'sources.kinds': SourceKinds;
    'sources.inputs': SourceInputs;
    'sources.service': SourceService;
    'sources.runner': SyncRunner;
    'sources.push': SourcePush;
  }
}

const RUN_JOB = 'run';

export default definePlugin<SourcesOptions>({
  id: 'sources',
  version: '1.0.0',
  kernel: '^1.0.0',
  // A source writes a database (made through the databases plugin) through the records write path, reading its
  // provider through a connection of the integrations plugin; kinds come from provider plugins tapping `sources.kinds`.
  dependsOn: { databases: '^1.0.0', records: '^1.0.0', spaces: '^1.0.0', integrations: '^1.0.0' },
  // A schedule that paused itself tells the source's creator; who made a source is personal data (gdpr.ts); packs carry
  // sources with their databases (pack.ts).
  optionalDependsOn: { notifications: '^1.0.0', gdpr: '^1.0.0', packs: '^1.0.0' },
  optionsSchema: SourcesOptions,
  migrations: fileURLToPath(new URL('./migrations', import.meta.url)),
  register(ctx) {
    const hooks = ctx.defineHooks('kinds', createSourceKindHooks());
    const options = { allowPrivateNetworks: ctx.options.allowPrivateNetworks ?? false, maxWaitSeconds: ctx.options.maxWaitSeconds ?? 300, pauseAfterFailures: ctx.options.pauseAfterFailures ?? 5 };
    const enqueue = (runId: string, trx?: Db) => ctx.sendJob(RUN_JOB, { runId }, trx);
    ctx.provide('kinds', () => new SourceKinds(hooks));
    ctx.provide('inputs', (r) =>
      new SourceInputs({ connections: () => r('integrations.connections'), oauth: () => r('integrations.oauth'), provider: (id) => r('integrations.providers').find(id), allowPrivateNetworks: options.allowPrivateNetworks }),
    );
    ctx.provide('service', (r) =>
      new SourceService({
        db: r('db'),
        authz: r('authz'),
        kinds: r('sources.kinds'),
        inputs: r('sources.inputs'),
        databases: () => r('databases.service'),
        fields: () => r('databases.fields'),
        managed: () => r('databases.managedFields'),
        spaces: () => r('spaces.service'),
        push: () => r('sources.push'),
        enqueue,
      }),
    );
    const paused = async (trx: Db, source: SourceRow, error: string) => {
      if (!ctx.has('notifications') || !source.created_by) return;
      await ctx.resolve('notifications.service').notify(trx, [
        { workspaceId: source.workspace_id, userId: source.created_by, type: 'source_paused', actorId: null, subject: { type: 'source', id: source.id, title: source.name }, databaseId: source.database_id, data: { error } },
      ]);
    };
    ctx.provide('runner', (r) =>
      new SyncRunner({
        db: r('db'),
        events: r('events'),
        authz: r('authz'),
        kinds: r('sources.kinds'),
        inputs: r('sources.inputs'),
        records: () => r('records.service'),
        bulk: () => r('records.bulk'),
        logger: ctx.logger,
        ...options,
        paused,
        sleep: (ms, signal) => new Promise((resolve) => {
          const timer = setTimeout(resolve, ms);
          signal.addEventListener('abort', () => (clearTimeout(timer), resolve(undefined)), { once: true });
        }),
      }),
    );
    ctx.provide('push', (r) => new SourcePush({ db: r('db'), kinds: r('sources.kinds'), inputs: r('sources.inputs'), service: () => r('sources.service'), logger: ctx.logger }));
    ctx.tapFanOut({ name: 'push', events: ['integration.*'], handler: (trx, events) => ctx.resolve('sources.push').pushed(trx, events) });
    // A run's pages are each committed with their cursor: a job retried after a crash goes on from the last one.
    ctx.job<{ runId: string }>({ name: RUN_JOB, retryLimit: 3, expireInSeconds: 6 * 60 * 60, handler: ({ runId }) => ctx.resolve('sources.runner').run(runId) });
    ctx.job({
      name: 'tick',
      schedule: '* * * * *',
      handler: () => tick(ctx.resolve('db'), ctx.resolve('sources.service'), (runId) => enqueue(runId), ctx.logger),
    });
    // Channels are replaced a day before they end, and those that could not be opened are tried again, hourly.
    ctx.job({ name: 'push-renew', schedule: '17 * * * *', handler: async () => void (await ctx.resolve('sources.push').renew()) });
    if (ctx.has('gdpr')) tapGdpr(ctx);
    if (ctx.has('packs')) {
      tapPacks(ctx.hooksOf('packs.kinds'), {
        kinds: () => ctx.resolve('sources.kinds'),
        connections: () => ctx.resolve('integrations.connections'),
        setSynced: (trx, databaseId, ids, synced) => ctx.resolve('databases.managedFields').setSynced(trx, databaseId, ids, synced),
      });
    }
    ctx.hooksOf('databases.databases').deleted.tapPromise('sources', ({ trx, databaseId }) => ctx.resolve('sources.service').forgetDatabase(trx, databaseId));
    ctx.routes(sourceRoutes());
  },
  // Every provider plugin has tapped by now: a kind declared wrongly stops the start, not a later request.
  boot: (ctx) => void ctx.resolve('sources.kinds').all(),
});
