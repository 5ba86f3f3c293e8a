import type { Logger } from 'pino';
import type { KernelHooks, ProviderEntry } from '../../core/hooks.ts';
import { StartupError } from '../../core/errors.ts';
import type { Delivery, MailMessage, MailProvider } from './types.ts';

/** Hands queued messages to the provider chosen by the `provider` option, among those every plugin added to `providers.for('mail')`. */
export class MailDelivery {
  private chosen: MailProvider | undefined;

  constructor(
    private readonly hooks: KernelHooks,
    private readonly providerId: string,
    private readonly retryLimit: number,
    private readonly logger: Logger,
  ) {}

  /** The chosen provider; a start-up error when no plugin added it. Asked at boot, when every plugin has registered its providers. */
  provider(): MailProvider {
    if (this.chosen) return this.chosen;
    const entries = this.hooks.providers.for('mail').call([]) as ProviderEntry<MailProvider>[];
    const matching = entries.filter((e) => e.id === this.providerId);
    if (matching.length === 0) {
      const available = entries.map((e) => `"${e.id}"`).join(', ') || 'none';
      throw new StartupError(
        `Mail provider "${this.providerId}" (plugins/mail/options/provider) is not available; available: ${available}. "smtp" needs plugins/mail/options/smtp.`,
        'config_invalid',
        ['mail'],
      );
    }
    if (matching.length > 1) throw new StartupError(`Mail provider "${this.providerId}" is added by more than one tap.`, 'config_invalid', ['mail']);
    const { provider } = matching[0];
    if (typeof provider?.send !== 'function') throw new StartupError(`Mail provider "${this.providerId}" has no send() method.`, 'config_invalid', ['mail']);
    return (this.chosen = provider);
  }

  /** One attempt; a failure propagates so the job is retried, and the last failure is logged as an error. */
  async deliver(message: MailMessage, delivery: Delivery, retryCount: number): Promise<void> {
    try {
      await this.provider().send(message, delivery);
    } catch (err) {
      if (retryCount >= this.retryLimit) {
        this.logger.error({ err, deliveryId: delivery.id, to: message.to, subject: message.subject, provider: this.providerId }, 'mail could not be delivered; giving up');
      }
      throw err;
    }
  }
}
