import { fileURLToPath } from 'node:url';
import type { Db } from '../../core/db.ts';
import { definePlugin } from '../../core/plugin.ts';
import { BillingService } from './billing.service.ts';
import { CreditService } from './credits.service.ts';
import { tapGdpr } from './gdpr.ts';
import { ChosenProvider } from './chosen-provider.ts';
import { createBillingProviderHooks } from './hooks.ts';
import { Clock } from './periods.ts';
import { DEFAULT_PLANS, Plans } from './plans.ts';
import { billingRoutes } from './routes.ts';
import { BillingOptions } from './schemas.ts';
import { SubscriptionService } from './subscriptions.service.ts';
import { UsageMeters } from './usage.service.ts';
import { BillingWebhooks } from './webhooks.service.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'billing.clock': Clock;
    'billing.provider': ChosenProvider;
    'billing.service': BillingService;
    'billing.meters': UsageMeters;
    'billing.subscriptions': SubscriptionService;
    'billing.credits': CreditService;
    'billing.webhooks': BillingWebhooks;
  }
}

const PURCHASE_JOB = 'purchase';
const PURCHASE_RETRIES = 2;

export default definePlugin<BillingOptions>({
  id: 'billing',
  version: '1.0.0',
  kernel: '^1.0.0',
  // Accounts belong to workspaces; admins hear of failed payments through notifications when that plugin is on.
  dependsOn: { workspaces: '^1.0.0' },
  optionalDependsOn: { notifications: '^1.0.0', gdpr: '^1.0.0' },
  optionsSchema: BillingOptions,
  migrations: fileURLToPath(new URL('./migrations', import.meta.url)),
  // Agents spend AI credits through `billing.credits`.
  exports: ['billing.credits', 'billing.service'],
  register(ctx) {
    const hooks = ctx.defineHooks('providers', createBillingProviderHooks());
    const options = ctx.options;
    const enabled = Boolean(options.provider);
    const plans = new Plans(options.plans ?? DEFAULT_PLANS, options.trialPlan ?? 'pro');
    const chosen = new ChosenProvider(hooks, options.provider);
    const provider = () => chosen.get();
    ctx.provide('provider', () => chosen);
    const notifyAdmins = async (trx: Db, workspaceId: string, type: string, data: Record<string, unknown>) => {
      if (!ctx.has('notifications')) return;
      const admins = await ctx.resolve('workspaces.members').adminIds(workspaceId, trx);
      await ctx.resolve('notifications.service').notify(trx, admins.map((userId) => ({ workspaceId, userId, type, actorId: null, subject: { type: 'billing', id: workspaceId, title: 'Billing' }, data })));
    };
    ctx.provide('clock', () => new Clock());
    ctx.provide('meters', (r) => new UsageMeters({ db: r('db'), storage: r('database'), hooks: ctx.hooks.usage, plans, clock: r('billing.clock') }));
    ctx.provide('credits', (r) =>
      new CreditService({
        enabled,
        db: r('db'),
        plans,
        clock: r('billing.clock'),
        provider,
        currency: options.creditCurrency ?? 'usd',
        unitAmount: options.creditUnitAmount ?? 1,
        logger: ctx.logger,
        startPurchase: (trx, purchaseId) => ctx.sendJob(PURCHASE_JOB, { purchaseId }, trx).then(() => undefined),
        notifyAdmins,
      }),
    );
    ctx.provide('subscriptions', (r) =>
      new SubscriptionService({ db: r('db'), plans, provider, clock: r('billing.clock'), trialDays: options.trialDays ?? 30, logger: ctx.logger, workspace: (id) => r('workspaces.service').summaryOf(id), capTo: (trx, ids, plan) => r('billing.meters').capTo(trx, ids, plan) }),
    );
    ctx.provide('webhooks', (r) => new BillingWebhooks({ db: r('db'), provider, subscriptions: r('billing.subscriptions'), credits: r('billing.credits'), logger: ctx.logger, notifyAdmins }));
    ctx.provide('service', (r) => new BillingService({ db: r('db'), enabled, meters: r('billing.meters'), credits: r('billing.credits'), clock: r('billing.clock') }));
    ctx.routes(billingRoutes(1024 * 1024));
    if (!enabled) return;
    // Writes that raise a meter are counted and held to the plan here; with no provider nothing taps, and nothing is counted.
    ctx.hooks.usage.rise.tapPromise('billing', (change) => ctx.resolve('billing.meters').rise(change));
    ctx.hooks.usage.fall.tapPromise('billing', (change) => ctx.resolve('billing.meters').fall(change));
    if (ctx.has('gdpr')) tapGdpr(ctx);
    ctx.job<{ purchaseId: string }>({
      name: PURCHASE_JOB,
      retryLimit: PURCHASE_RETRIES,
      retryDelaySeconds: 60,
      handler: ({ purchaseId }, job) => ctx.resolve('billing.credits').charge(purchaseId, job.retryCount >= PURCHASE_RETRIES),
    });
    ctx.job({ name: 'trial-end', schedule: '*/10 * * * *', handler: async () => void (await ctx.resolve('billing.subscriptions').endTrials()) });
    // Drift between what the provider holds and what is stored here, and between counts and what is there, is put right daily.
    ctx.job({
      name: 'reconcile',
      schedule: '41 3 * * *',
      handler: async () => {
        await ctx.resolve('billing.subscriptions').reconcile();
        await ctx.resolve('billing.meters').recountAll();
      },
    });
  },
  // The provider named must be there: a typo stops the start, not the first checkout.
  boot: async (ctx) => {
    if (!ctx.options.provider) return;
    ctx.resolve('billing.provider').get();
    // Plans are configuration: the limits kept beside the counts follow what is configured now.
    await ctx.resolve('billing.meters').capAll();
  },
});
