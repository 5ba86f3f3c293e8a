import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { createPersonalDataHooks } from './hooks.ts';
import { GdprOptions } from './schemas.ts';
import { ReceiptKey } from './receipt-key.ts';
import { DataExports } from './exports.service.ts';
import { ErasureService } from './erasure.service.ts';
import { gdprRoutes } from './routes.ts';

declare module '../../core/container.ts' {
  interface ServiceMap {
    'gdpr.exports': DataExports;
    'gdpr.erasure': ErasureService;
    'gdpr.receiptKey': ReceiptKey;
  }
}

const EXPORT_JOB = 'export';

export default definePlugin<GdprOptions>({
  id: 'gdpr',
  version: '1.0.0',
  kernel: '^1.0.0',
  // No dependencies: the plugins holding personal data depend on this one (optionally) and tap its hook set.
  optionsSchema: GdprOptions,
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  register(ctx) {
    const hooks = ctx.defineHooks('personalData', createPersonalDataHooks());
    ctx.provide('receiptKey', (r) => new ReceiptKey(r('db'), ctx.options.receiptKey));
    ctx.provide('exports', (r) => new DataExports(r('db'), r('blobs'), hooks, (data, trx) => ctx.sendJob(EXPORT_JOB, data, trx), ctx.logger));
    ctx.provide('erasure', (r) => new ErasureService(r('db'), hooks, r('privacy'), r('gdpr.receiptKey'), r('gdpr.exports')));
    ctx.job<{ id: string }>({ name: EXPORT_JOB, retryLimit: 0, handler: ({ id }) => ctx.resolve('gdpr.exports').run(id) });
    ctx.job({
      name: 'exports-expire',
      schedule: '7 * * * *',
      handler: async () => {
        const expired = await ctx.resolve('gdpr.exports').expire();
        if (expired > 0) ctx.logger.info({ expired }, 'data exports past their 24 hours deleted');
      },
    });
    ctx.routes(gdprRoutes());
  },
});
