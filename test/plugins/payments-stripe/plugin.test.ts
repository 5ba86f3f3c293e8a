import assert from 'node:assert/strict';
import { compile } from '../../../core/schema.ts';
import type { PluginContext } from '../../../core/plugin.ts';
import { createBillingProviderHooks, type PaymentProvider } from '../../../plugins/billing/hooks.ts';
import { createStripePlugin } from '../../../plugins/payments-stripe/index.ts';
import { DEFAULT_API_URL, StripeOptions } from '../../../plugins/payments-stripe/schemas.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';

/** The providers `billing.providers` holds once the plugin registered with `options` (a context with only what it uses). */
function providersAfterRegister(options: StripeOptions): PaymentProvider[] {
  const hooks = createBillingProviderHooks();
  const ctx = { options, hooksOf: (key: string) => (key === 'billing.providers' ? hooks : assert.fail(`unexpected hooksOf(${key})`)) };
  createStripePlugin().register?.(ctx as unknown as PluginContext<StripeOptions>);
  return hooks.providers.call([]);
}

describe('payments-stripe plugin', () => {
  storageIndependent();

  it('depends on billing and declares its options', () => {
    const plugin = createStripePlugin();
    assert.equal(plugin.id, 'payments-stripe');
    assert.deepEqual(plugin.dependsOn, { billing: '^1.0.0' });
    assert.equal(plugin.optionsSchema, StripeOptions);
  });

  it('adds the Stripe provider to billing.providers when a secret key is set, and nothing without one', () => {
    const added = providersAfterRegister({ secretKey: 'sk_test_51Key', webhookSecret: 'whsec_abc' });
    assert.deepEqual(added.map((p) => [p.id, p.name]), [['stripe', 'Stripe']]);
    assert.deepEqual(providersAfterRegister({ webhookSecret: 'whsec_abc' }), []);
  });

  it('takes Stripe keys and an API root, defaulting to Stripe’s own; refuses other shapes', () => {
    const validate = compile(StripeOptions);
    const options: Record<string, unknown> = { secretKey: 'sk_live_51Key', webhookSecret: 'whsec_abc' };
    assert.ok(validate(options), JSON.stringify(validate.errors));
    assert.equal(options.apiUrl, DEFAULT_API_URL);
    for (const good of [{ secretKey: 'rk_test_51Key' }, { apiUrl: 'http://127.0.0.1:12111' }, { apiUrl: 'https://api.stripe.com/' }, {}]) {
      assert.ok(validate({ ...good }), `${JSON.stringify(good)}: ${JSON.stringify(validate.errors)}`);
    }
    for (const bad of [{ secretKey: 'pk_test_51Key' }, { webhookSecret: 'abc' }, { apiUrl: 'https://proxy.example/stripe' }, { apiUrl: 'ftp://api.stripe.com' }, { other: 1 }]) {
      assert.ok(!validate({ ...bad }), `${JSON.stringify(bad)} should be refused`);
    }
  });
});
