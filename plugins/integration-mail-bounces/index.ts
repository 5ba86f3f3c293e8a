import { definePlugin, type Plugin } from '../../core/plugin.ts';
import { markAddresses } from './marking.ts';
import { mailBouncesProvider } from './provider.ts';
import { DEFAULT_SNS_CERTIFICATE_HOSTS, MailBouncesOptions } from './schemas.ts';

/** Bounces and complaints from Amazon SES (through SNS) and SendGrid's Event Webhook, as an integrations provider. */
export function createMailBouncesPlugin(): Plugin<MailBouncesOptions> {
  return definePlugin<MailBouncesOptions>({
    id: 'integration-mail-bounces',
    version: '1.0.0',
    kernel: '^1.0.0',
    // The addresses a delivery names are marked on the accounts (auth's `users.markEmails`).
    dependsOn: { integrations: '^1.0.0', auth: '^1.0.0' },
    optionsSchema: MailBouncesOptions,
    register(ctx) {
      const provider = mailBouncesProvider({
        snsCertificateHosts: ctx.options.snsCertificateHosts ?? DEFAULT_SNS_CERTIFICATE_HOSTS,
        allowInsecureCertificateUrls: ctx.options.allowInsecureCertificateUrls ?? false,
        topicArns: ctx.options.topicArns,
        sendgridPublicKey: ctx.options.sendgridPublicKey,
      });
      ctx.hooksOf('integrations.providers').providers.tap('integration-mail-bounces', (list) => [...list, provider]);
      ctx.tapFanOut({ name: 'mark-addresses', events: ['integration.mail_bounces.*'], handler: (trx, events) => markAddresses(trx, ctx.resolve('auth.users'), events) });
    },
  });
}

export default createMailBouncesPlugin();
