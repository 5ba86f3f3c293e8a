import { definePlugin, type Plugin } from '../../core/plugin.ts';
import { linearProvider } from './provider.ts';
import { DEFAULT_API_URL, LinearOptions } from './schemas.ts';

/** Linear as an integrations provider: API keys tested against its GraphQL API, its signed webhook deliveries read. */
export function createLinearPlugin(): Plugin<LinearOptions> {
  return definePlugin<LinearOptions>({
    id: 'integration-linear',
    version: '1.0.0',
    kernel: '^1.0.0',
    dependsOn: { integrations: '^1.0.0' },
    optionsSchema: LinearOptions,
    register(ctx) {
      const provider = linearProvider({ apiUrl: ctx.options.apiUrl ?? DEFAULT_API_URL });
      ctx.hooksOf('integrations.providers').providers.tap('integration-linear', (list) => [...list, provider]);
    },
  });
}

export default createLinearPlugin();
