import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin, type Plugin } from '../../core/plugin.ts';
import type { Db } from '../../core/db.ts';
import { DeliveryService } from './deliveries.service.ts';
import { systemResolver, WebhookClient, type Resolver } from './http-client.ts';
import { OutboundPoster } from './outbound.ts';
import { tapGdpr } from './gdpr.ts';
import { tapPacks } from './pack.ts';
import { webhookRoutes } from './routes.ts';
import { WebhooksOptions } from './schemas.ts';
import { DeliverySender } from './sender.ts';
import { WebhookService } from './webhooks.service.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'webhooks.service': WebhookService;
    'webhooks.deliveries': DeliveryService;
    'webhooks.sender': DeliverySender;
    'webhooks.outbound': OutboundPoster;
  }
}

/** Seams a test replaces: the resolver every target is checked with, at save and at connect time. */
export interface WebhooksSeams {
  resolver?: Resolver;
}

/** A whole answer is never needed (only its status): what is read of it is capped. */
const MAX_RESPONSE_BYTES = 64 * 1024;
const TIMEOUT_MS = 10_000;

export function createWebhooksPlugin(seams: WebhooksSeams = {}): Plugin<WebhooksOptions> {
  return definePlugin<WebhooksOptions>({
    id: 'webhooks',
    version: '1.0.0',
    kernel: '^1.0.0',
    exports: ['webhooks.outbound'],
    // Webhooks belong to workspaces (whose admins are told when one is disabled) and may be narrowed to a database.
    dependsOn: { auth: '^1.0.0', workspaces: '^1.0.0', databases: '^1.0.0' },
    // Admins are notified of a disabled webhook through the notifications plugin when it is on; packs carry webhooks;
    // an erasure (gdpr) forgets who created one.
    optionalDependsOn: { notifications: '^1.0.0', packs: '^1.0.0', gdpr: '^1.0.0' },
    optionsSchema: WebhooksOptions,
    migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
    register(ctx) {
      const options = {
        allowPrivateNetworks: ctx.options.allowPrivateNetworks ?? false,
        disableAfterFailures: ctx.options.disableAfterFailures ?? 20,
        retryScale: ctx.options.retryScale ?? 1,
        pollMs: ctx.options.pollMs ?? 1000,
        concurrency: ctx.options.concurrency ?? 16,
        maxDelayMs: ctx.options.maxDelayMs ?? 10_000,
      };
      const retentionDays = ctx.options.deliveryRetentionDays ?? 30;
      const resolver = seams.resolver ?? systemResolver;
      // Services, not closures: one plugin object serves every kernel of a test process, each with its own sender.
      ctx.provide('sender', () => {
        const client = new WebhookClient({ resolver, allowPrivateNetworks: options.allowPrivateNetworks, timeoutMs: TIMEOUT_MS, maxResponseBytes: MAX_RESPONSE_BYTES });
        return new DeliverySender(() => ctx.resolve('webhooks.deliveries'), client, () => ctx.resolve('load'), { ...options, timeoutMs: TIMEOUT_MS, logger: ctx.logger });
      });

      const disabled = async (trx: Db, webhook: { id: string; workspace_id: string; url: string }, reason: string) => {
        ctx.logger.warn({ webhook: webhook.id, reason }, 'webhook disabled');
        if (!ctx.has('notifications')) return;
        const admins = await ctx.resolve('workspaces.members').adminIds(webhook.workspace_id, trx);
        await ctx.resolve('notifications.service').notify(
          trx,
          admins.map((userId) => ({ workspaceId: webhook.workspace_id, userId, type: 'webhook_disabled', actorId: null, subject: { type: 'webhook', id: webhook.id, title: webhook.url }, data: { reason } })),
        );
      };

      ctx.provide('outbound', () => new OutboundPoster({ resolver, allowPrivateNetworks: options.allowPrivateNetworks, timeoutMs: TIMEOUT_MS, maxResponseBytes: MAX_RESPONSE_BYTES }));
      ctx.provide('service', (r) => new WebhookService({ db: r('db'), databases: () => r('databases.service'), resolver, allowPrivateNetworks: options.allowPrivateNetworks }));
      ctx.provide('deliveries', (r) => new DeliveryService({ db: r('db'), wake: () => r('webhooks.sender').wake(), sender: () => r('webhooks.sender'), retryScale: options.retryScale, disableAfterFailures: options.disableAfterFailures, disabled }));
      ctx.tapFanOut({ name: 'deliveries', events: ['*'], handler: async (trx, events) => void (await ctx.resolve('webhooks.deliveries').enqueue(trx, events)) });
      ctx.hooksOf('databases.databases').deleting.tapPromise('webhooks', ({ trx, workspaceId, databaseId }) => ctx.resolve('webhooks.service').forgetDatabase(trx, workspaceId, databaseId));
      if (ctx.has('gdpr')) tapGdpr(ctx);
      if (ctx.has('packs')) tapPacks(ctx.hooksOf('packs.kinds'), { webhooks: () => ctx.resolve('webhooks.service') });
      ctx.routes(webhookRoutes());
      ctx.job({
        name: 'deliveries-purge',
        schedule: '41 4 * * *',
        handler: async () => {
          const purged = await ctx.resolve('webhooks.deliveries').purge(retentionDays);
          if (purged > 0) ctx.logger.info({ purged }, 'webhook deliveries older than the retention period deleted');
        },
      });
    },
    boot: (ctx) => ctx.resolve('webhooks.sender').start(),
    shutdown: (ctx) => {
      ctx.resolve('webhooks.outbound').close();
      return ctx.resolve('webhooks.sender').stop();
    },
  });
}

export default createWebhooksPlugin();
