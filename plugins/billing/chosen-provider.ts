import { StartupError } from '../../core/errors.ts';
import type { BillingProviderHooks, PaymentProvider } from './hooks.ts';

/** The provider `billing.provider` names, among those the payment plugins added; found once their taps are in. */
export class ChosenProvider {
  private chosen?: PaymentProvider;

  constructor(private readonly hooks: BillingProviderHooks, private readonly id: string | undefined) {}

  get(): PaymentProvider {
    if (this.chosen) return this.chosen;
    const found = this.hooks.providers.call([]).find((p) => p.id === this.id);
    if (!found) throw new StartupError(`billing.provider is "${this.id}", but no enabled plugin provides it (is payments-${this.id} enabled, with its secretKey set?).`, 'plugin_options_invalid', ['billing']);
    this.chosen = found;
    return found;
  }
}
