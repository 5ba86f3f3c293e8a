import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin } from '../../core/plugin.ts';
import { MailOptionsSchema, type MailOptions } from './options.ts';
import { SmtpProvider } from './smtp.provider.ts';
import { MailOutbox } from './outbox.ts';
import { MailDelivery } from './delivery.ts';
import { DELIVER_JOB, MailSender } from './sender.ts';
import { mailRoutes } from './routes.ts';
import type { MailMessage } from './types.ts';
import { tapGdpr } from './gdpr.ts';

export type { MailMessage, MailProvider, Delivery } from './types.ts';
export type { MailSender } from './sender.ts';
export type { MailOptions };

declare module '../../core/container.ts' {
  interface ServiceMap {
    'mail.sender': MailSender;
    'mail.outbox': MailOutbox;
    'mail.delivery': MailDelivery;
  }
}

export default definePlugin<MailOptions>({
  id: 'mail',
  version: '1.0.0',
  kernel: '^1.0.0',
  optionalDependsOn: { gdpr: '^1.0.0' },
  optionsSchema: MailOptionsSchema,
  migrations: path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations'),
  exports: ['mail.sender'],
  register(ctx) {
    // Personal data this plugin keeps is exported and erased through the gdpr plugin's hooks, when it is enabled.
    if (ctx.has('gdpr')) tapGdpr(ctx);
    const { smtp, from, retry } = ctx.options;
    const providerId = ctx.options.provider ?? (smtp ? 'smtp' : 'outbox');
    const mail = ctx.hooks.providers.for('mail');

    const outbox = new MailOutbox(ctx.db);
    mail.tap('outbox', (list) => [...list, { id: 'outbox', provider: outbox }]);
    // Built only when configured: an SMTP relay the operator did not name cannot be chosen.
    if (smtp) {
      const provider = new SmtpProvider(smtp, from);
      mail.tap('smtp', (list) => [...list, { id: 'smtp', provider }]);
    }

    ctx.provide('outbox', () => outbox);
    ctx.provide('delivery', (r) => new MailDelivery(r('hooks'), providerId, retry.limit, ctx.logger));
    ctx.provide('sender', (r) => new MailSender((data, trx) => ctx.sendJob(DELIVER_JOB, data, trx), () => r('jobs').notifyWorker(`mail.${DELIVER_JOB}`)));

    ctx.job<{ message: MailMessage }>({
      name: DELIVER_JOB,
      retryLimit: retry.limit,
      retryDelaySeconds: retry.delaySeconds,
      handler: ({ message }, job) => ctx.resolve('mail.delivery').deliver(message, { id: job.id }, job.retryCount),
    });

    ctx.routes(mailRoutes());
  },
  boot(ctx) {
    // Every plugin has registered its providers by now: an unknown `provider` stops start-up instead of failing each message.
    ctx.resolve('mail.delivery').provider();
  },
});
