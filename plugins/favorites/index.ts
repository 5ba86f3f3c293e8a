import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { FavoriteReader } from './favorite-reader.ts';
import { FavoriteService } from './favorites.service.ts';
import { favoriteRoutes } from './routes.ts';

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
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  register(ctx) {
    ctx.provide('reader', (r) => new FavoriteReader(r('db'), r('authz'), r('records.service'), r('databases.catalog')));
    ctx.provide('service', (r) => new FavoriteService(r('db'), r('events'), r('authz'), r('records.service'), r('favorites.reader'), r('databases.catalog')));
    ctx.routes(favoriteRoutes());
    // A member who leaves takes their favorites along, in the removal's transaction.
    ctx.hooks.entity.afterWrite.for('workspace_member').tapPromise('favorites', async ({ operation, trx, before }) => {
      if (operation !== 'delete' || !before) return;
      const { user_id, workspace_id } = before as { user_id: string; workspace_id: string };
      await ctx.resolve('favorites.service').forgetMember(trx, workspace_id, user_id);
    });
    // After the records plugin's trash purge (03:43): favorites of purged records go.
    ctx.job({
      name: 'sweep',
      schedule: '13 4 * * *',
      handler: async () => {
        const swept = await ctx.resolve('favorites.service').sweep();
        if (swept > 0) ctx.logger.info({ swept }, 'favorites of purged records deleted');
      },
    });
  },
});
