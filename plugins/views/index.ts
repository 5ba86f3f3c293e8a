import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { tapDatabases } from './database-taps.ts';
import { OverrideService } from './overrides.service.ts';
import { PublicationService } from './publications.service.ts';
import { viewRoutes } from './routes.ts';
import { ViewService } from './views.service.ts';
import { tapPacks } from './pack.ts';
import { tapGdpr } from './gdpr.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'views.service': ViewService;
    'views.overrides': OverrideService;
    'views.publications': PublicationService;
  }
}

export default definePlugin({
  id: 'views',
  version: '1.0.0',
  kernel: '^1.0.0',
  dependsOn: { databases: '^1.0.0', records: '^1.0.0', workspaces: '^1.0.0' },
  // Views, with their form settings, travel in packs when the packs plugin is on. Personal data goes through the gdpr plugin's hooks when it is on.
  optionalDependsOn: { packs: '^1.0.0', gdpr: '^1.0.0' },
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  // The public plugin answers form links through `views.publications.resolve`.
  exports: ['views.service', 'views.publications'],
  register(ctx) {
    // Personal data this plugin keeps is exported and erased through the gdpr plugin's hooks, when it is enabled.
    if (ctx.has('gdpr')) tapGdpr(ctx);
    ctx.provide('service', (r) => new ViewService(r('db'), r('events'), r('records.service'), r('databases.viewIndexes'), r('records.query'), r('databases.catalog')));
    ctx.provide('overrides', (r) => new OverrideService(r('db'), r('records.service'), r('views.service'), r('records.query'), r('database')));
    ctx.provide('publications', (r) => new PublicationService(r('db'), r('events'), r('views.service'), r('records.service')));
    ctx.routes(viewRoutes());
    tapDatabases(ctx.hooksOf('databases.databases'));
    if (ctx.has('packs')) tapPacks(ctx.hooksOf('packs.kinds'), { views: () => ctx.resolve('views.service'), records: () => ctx.resolve('records.service') });

    let overrides: OverrideService | undefined;
    ctx.hooksOf('records.views').resolve.tapPromise('views', (lookup) => (overrides ??= ctx.resolve('views.overrides')).forQuery(lookup));

    ctx.hooksOf('workspaces.lifecycle').memberRemoved.tapPromise('views', ({ trx, workspaceId, userId }) => ctx.resolve('views.overrides').forgetMember(trx, workspaceId, userId));
  },
});
