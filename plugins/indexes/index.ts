import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import type { ViewQuery } from '../databases/public.ts';
import { IndexLearner } from './learner.ts';
import { IndexPolicy } from './indexes.service.ts';
import { StatisticsKeeper } from './statistics.ts';
import { indexRoutes } from './routes.ts';
import { IndexesOptionsSchema, type IndexesOptions } from './options.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'indexes.learner': IndexLearner;
    'indexes.policy': IndexPolicy;
    'indexes.statistics': StatisticsKeeper;
    /** A database's indexed queries as the view-index sync reads them: views' and this plugin's. */
    'indexes.queries': (databaseId: string) => Promise<ViewQuery[]>;
  }
}

/**
 * Adaptive indexes: the fields that slow record queries filter and sort on get the same `(key, id)` indexes views get,
 * within the databases plugin's per-table budget, and lose them when nobody queries them any more. Creators see what
 * is indexed and why, and may pin or forbid a field. A slow query also has its table analysed when its statistics are
 * missing or stale, so its plans do not come from nothing after a large load.
 */
export default definePlugin<IndexesOptions>({
  id: 'indexes',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Learns from record queries; adds to the databases' indexed queries after the views plugin has added its own.
  dependsOn: { databases: '^1.0.0', records: '^1.0.0', workspaces: '^1.0.0' },
  optionalDependsOn: { views: '^1.0.0' },
  optionsSchema: IndexesOptionsSchema,
  migrations: fileURLToPath(new URL('./migrations', import.meta.url)),
  register(ctx) {
    const databaseHooks = ctx.hooksOf('databases.databases');
    const indexes = () => ctx.resolve('databases.viewIndexes');
    ctx.provide('learner', (r) => new IndexLearner(r('db'), indexes, ctx.options, ctx.logger));
    ctx.provide('policy', (r) => new IndexPolicy(r('db'), indexes, () => ctx.resolve('databases.fields'), r('indexes.learner'), ctx.options.dropAfterDays));
    ctx.provide('statistics', (r) => new StatisticsKeeper(r('db'), indexes, ctx.options.slowMs, ctx.logger));
    ctx.provide('queries', (r) => (databaseId: string) => databaseHooks.indexedQueries.promise([], { db: r('db'), databaseId }));

    let learner: IndexLearner | undefined;
    let statistics: StatisticsKeeper | undefined;
    ctx.hooksOf('records.queries').ran.tap('indexes', (query) => {
      (learner ??= ctx.resolve('indexes.learner')).heard(query);
      (statistics ??= ctx.resolve('indexes.statistics')).heard(query);
    });
    databaseHooks.indexedQueries.tapPromise('indexes', (queries, { db, databaseId }) => ctx.resolve('indexes.policy').queriesFor(db, databaseId, queries));

    ctx.job({
      name: 'expire',
      schedule: '17 4 * * *',
      handler: async () => {
        const databases = await ctx.resolve('indexes.policy').expire();
        if (databases > 0) ctx.logger.info({ databases }, 'learned indexes no query used lately are dropped');
      },
    });
    ctx.routes(indexRoutes());
  },
});
