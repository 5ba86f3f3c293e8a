import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from '../../core/db.ts';
import { definePlugin } from '../../core/plugin.ts';
import { follow, nameDatabase, REBUILD_JOB } from './follow.ts';
import { backfill, nameEverything } from './backfill.ts';
import { rebuildPending } from './rebuild.ts';
import { searchRoutes } from './routes.ts';
import { SearchOptions } from './schemas.ts';
import { SearchIndex } from './search-index.ts';
import { SearchService } from './search.service.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'search.index': SearchIndex;
    'search.service': SearchService;
  }
}

/** Names every space and document made before the plugin was enabled (databases and records go through rebuilds). */
const BACKFILL_JOB = 'backfill';

export default definePlugin<SearchOptions>({
  id: 'search',
  version: '1.0.0',
  kernel: '^1.0.0',
  // What is searched: records (through the records service and its write hooks), databases, spaces; who sees what: authz.
  dependsOn: { workspaces: '^1.0.0', spaces: '^1.0.0', databases: '^1.0.0', records: '^1.0.0' },
  // Standalone documents are searched when their plugin is on.
  optionalDependsOn: { documents: '^1.0.0' },
  optionsSchema: SearchOptions,
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  register(ctx) {
    const options = { candidates: ctx.options.candidates ?? 2000, minPrefix: ctx.options.minPrefix ?? 3, pageSize: ctx.options.rebuildPageSize ?? 1000 };
    ctx.provide('index', (r) => new SearchIndex(r('db'), r('authz')));
    ctx.provide('service', (r) => new SearchService(r('db'), r('authz'), r('search.index'), options));
    ctx.job({
      name: REBUILD_JOB,
      retryLimit: 5,
      handler: () =>
        rebuildPending({
          index: ctx.resolve('search.index'),
          records: ctx.resolve('records.service'),
          logger: ctx.logger,
          pageSize: options.pageSize,
          name: (workspaceId, databaseId) => nameDatabase(ctx, workspaceId, databaseId),
        }),
    });
    ctx.job({
      name: BACKFILL_JOB,
      retryLimit: 5,
      handler: () => nameEverything(ctx.resolve('search.index'), ctx.resolve('spaces.service'), ctx.has('documents') ? ctx.resolve('documents.service') : undefined),
    });
    follow(ctx);
    ctx.routes(searchRoutes());
  },
  async boot(ctx) {
    const enqueue = async (trx: Db) => {
      await ctx.sendJob(REBUILD_JOB, {}, trx);
      await ctx.sendJob(BACKFILL_JOB, {}, trx);
    };
    const queued = await backfill(ctx.resolve('search.index'), ctx.resolve('databases.catalog'), enqueue);
    if (queued > 0) ctx.logger.info({ databases: queued }, 'databases, spaces and documents made before search was enabled queued for indexing');
  },
});
