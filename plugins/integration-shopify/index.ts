import { definePlugin, type Plugin } from '../../core/plugin.ts';
import { shopifyProvider } from './provider.ts';
import { DEFAULT_API_VERSION, ShopifyOptions } from './schemas.ts';

/** Shopify as an integrations provider: Admin API tokens tested against the shop, its signed webhook deliveries read. */
export function createShopifyPlugin(): Plugin<ShopifyOptions> {
  return definePlugin<ShopifyOptions>({
    id: 'integration-shopify',
    version: '1.0.0',
    kernel: '^1.0.0',
    dependsOn: { integrations: '^1.0.0' },
    optionsSchema: ShopifyOptions,
    register(ctx) {
      const provider = shopifyProvider({ apiUrl: ctx.options.apiUrl, apiVersion: ctx.options.apiVersion ?? DEFAULT_API_VERSION });
      ctx.hooksOf('integrations.providers').providers.tap('integration-shopify', (list) => [...list, provider]);
    },
  });
}

export default createShopifyPlugin();
