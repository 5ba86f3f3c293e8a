import { StartupError } from '../../core/errors.ts';
import { CATEGORIES, type IntegrationProvider, type ProviderHooks } from './hooks.ts';
import type { Integration } from './schemas.ts';

const PROVIDER_ID = /^[a-z][a-z0-9-]{0,62}$/;

/** The providers the enabled provider plugins added to `integrations.providers`, read once their taps are in. */
export class ProviderRegistry {
  private byId?: Map<string, IntegrationProvider>;

  constructor(private readonly hooks: ProviderHooks) {}

  all(): IntegrationProvider[] {
    return [...this.load().values()];
  }

  find(id: string): IntegrationProvider | undefined {
    return this.load().get(id);
  }

  describe(provider: IntegrationProvider): Integration {
    const auth = provider.auth;
    const capabilities = [
      ...(provider.verifyWebhook ? (['webhooks'] as const) : []),
      ...(provider.actions?.length ? (['actions'] as const) : []),
      ...(provider.sources?.length ? (['sources'] as const) : []),
    ];
    return {
      id: provider.id,
      name: provider.name,
      categories: provider.categories,
      auth: { type: auth.type, fields: auth.type === 'api_key' ? auth.fields.map((f) => ({ name: f.name, label: f.label, secret: f.secret })) : [] },
      capabilities,
      events: provider.events ?? [],
      configured: auth.type !== 'oauth2' || Boolean(auth.clientId && auth.clientSecret),
    };
  }

  private load(): Map<string, IntegrationProvider> {
    if (this.byId) return this.byId;
    const byId = new Map<string, IntegrationProvider>();
    for (const provider of this.hooks.providers.call([])) {
      if (!PROVIDER_ID.test(provider.id)) throw new StartupError(`Integration provider id "${provider.id}" is not lower-case letters, digits and hyphens.`, 'plugin_invalid');
      if (byId.has(provider.id)) throw new StartupError(`Integration provider "${provider.id}" is added twice.`, 'plugin_invalid');
      const unknown = provider.categories.filter((c) => !(CATEGORIES as readonly string[]).includes(c));
      if (unknown.length > 0) throw new StartupError(`Integration provider "${provider.id}" names unknown categories: ${unknown.join(', ')}.`, 'plugin_invalid');
      byId.set(provider.id, provider);
    }
    this.byId = byId;
    return byId;
  }
}
