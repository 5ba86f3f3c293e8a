import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { FavoriteReader } from './favorite-reader.ts';
import { FavoriteService } from './favorites.service.ts';
import { favoriteRoutes } from './routes.ts';
import { tapGdpr } from './gdpr.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'favorites.reader': FavoriteReader;
    'favorites.service': FavoriteService;
  }
}

export default definePlugin({
  id: 'favorites',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Favorites point at databases and at records, found, held and titled through the records service.
  dependsOn: { workspaces: '^1.0.0', databases: '^1.0.0', records: '^1.0.0' },
  optionalDependsOn: { gdpr: '^1.0.0' },
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  register(ctx) {
    // Personal data this plugin keeps is exported and erased through the gdpr plugin's hooks, when it is enabled.
    if (ctx.has('gdpr')) tapGdpr(ctx);
    ctx.provide('reader', (r) => new FavoriteReader(r('db'), r('authz'), r('records.service'), r('databases.catalog')));
    ctx.provide('service', (r) => new FavoriteService(r('db'), r('events'), r('authz'), r('records.service'), r('favorites.reader'), r('databases.catalog')));
    ctx.routes(favoriteRoutes());
    // A member who leaves takes their favorites along, in the removal's transaction.
    ctx.hooksOf('workspaces.lifecycle').memberRemoved.tapPromise('favorites', ({ trx, workspaceId, userId }) => ctx.resolve('favorites.service').forgetMember(trx, workspaceId, userId));
    // Records purged from the trash take their favorites along, in the purge's transaction.
    ctx.hooksOf('records.lifecycle').purged.tapPromise('favorites', ({ trx, databaseId, recordIds }) => ctx.resolve('favorites.service').forgetRecords(trx, databaseId, recordIds));
  },
});
