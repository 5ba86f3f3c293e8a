import { fileURLToPath } from 'node:url';
import type { Db } from '../../core/db.ts';
import { definePlugin } from '../../core/plugin.ts';
import { ConnectionService } from './connections.service.ts';
import { tapGdpr } from './gdpr.ts';
import { createProviderHooks } from './hooks.ts';
import { InboxService } from './inbox.service.ts';
import { ConnectionOAuth } from './oauth.service.ts';
import { ProviderRegistry } from './providers.ts';
import { integrationRoutes } from './routes.ts';
import { IntegrationsOptions } from './schemas.ts';


declare module '../../core/container.ts' {
  interface ServiceMap {
    'integrations.providers': ProviderRegistry;
    'integrations.connections': ConnectionService;
    'integrations.inbox': InboxService;
    'integrations.oauth': ConnectionOAuth;
  }
}

export default definePlugin<IntegrationsOptions>({
  id: 'integrations',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Connections belong to workspaces; the providers come from the integration-<id> plugins that tap this one's hooks.
  dependsOn: { auth: '^1.0.0', workspaces: '^1.0.0' },
  // An erasure deletes the connections the person made (gdpr.ts); admins hear of a connection that needs to be
  // authorized again through notifications.
  optionalDependsOn: { gdpr: '^1.0.0', notifications: '^1.0.0' },
  optionsSchema: IntegrationsOptions,
  migrations: fileURLToPath(new URL('./migrations', import.meta.url)),
  // The sources and agents plugins use connections (their credentials, opened) through these.
  exports: ['integrations.providers', 'integrations.connections', 'integrations.oauth'],
  register(ctx) {
    const hooks = ctx.defineHooks('providers', createProviderHooks());
    const retentionDays = ctx.options.deliveryRetentionDays ?? 30;
    ctx.provide('providers', () => new ProviderRegistry(hooks));
    ctx.provide('connections', (r) => new ConnectionService({ db: r('db'), providers: r('integrations.providers'), secrets: r('secrets'), publicUrl: () => r('host').publicUrl(), oauth: () => r('integrations.oauth') }));
    const needsReauth = async (trx: Db, connection: { id: string; workspace_id: string; name: string }, reason: string) => {
      ctx.logger.warn({ connection: connection.id, reason }, 'connection needs to be authorized again');
      if (!ctx.has('notifications')) return;
      const admins = await ctx.resolve('workspaces.members').adminIds(connection.workspace_id, trx);
      await ctx.resolve('notifications.service').notify(
        trx,
        admins.map((userId) => ({ workspaceId: connection.workspace_id, userId, type: 'connection_needs_reauth', actorId: null, subject: { type: 'connection', id: connection.id, title: connection.name }, data: { reason } })),
      );
    };
    ctx.provide('oauth', (r) => new ConnectionOAuth({ db: r('db'), providers: r('integrations.providers'), connections: r('integrations.connections'), secrets: r('secrets'), publicUrl: () => r('host').publicUrl(), needsReauth }));
    ctx.provide('inbox', (r) => new InboxService(r('db'), r('integrations.providers'), r('integrations.connections'), r('events')));
    ctx.tapFanOut({ name: 'inbox', events: ['integration.*'], handler: (trx, events) => ctx.resolve('integrations.inbox').processed(trx, events) });
    ctx.hooks.secrets.rotate.tapPromise('integrations', async ({ trx, box, resealed }) => {
      resealed['integrations.connections'] = await ctx.resolve('integrations.connections').reseal(trx, box);
    });
    if (ctx.has('gdpr')) tapGdpr(ctx);
    ctx.routes(integrationRoutes(ctx.options.maxDeliveryBytes ?? 5 * 1024 * 1024));
    ctx.job({
      name: 'deliveries-purge',
      schedule: '47 4 * * *',
      handler: async () => {
        const purged = await ctx.resolve('integrations.inbox').purge(retentionDays);
        if (purged > 0) ctx.logger.info({ purged }, 'integration deliveries older than the retention period deleted');
      },
    });
  },
  // Every provider plugin has tapped by now: one that declares itself wrongly stops the start, not a later request.
  boot: (ctx) => void ctx.resolve('integrations.providers').all(),
});
