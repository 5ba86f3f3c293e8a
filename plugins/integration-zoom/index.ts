import { definePlugin, type Plugin } from '../../core/plugin.ts';
import { zoomProvider } from './provider.ts';
import { DEFAULT_API_URL, DEFAULT_OAUTH_URL, ZoomOptions } from './schemas.ts';

/** Zoom as an integrations provider: Server-to-Server OAuth apps tested against its API, its signed webhook deliveries read. */
export function createZoomPlugin(): Plugin<ZoomOptions> {
  return definePlugin<ZoomOptions>({
    id: 'integration-zoom',
    version: '1.0.0',
    kernel: '^1.0.0',
    dependsOn: { integrations: '^1.0.0' },
    optionsSchema: ZoomOptions,
    register(ctx) {
      const provider = zoomProvider({ apiUrl: ctx.options.apiUrl ?? DEFAULT_API_URL, oauthUrl: ctx.options.oauthUrl ?? DEFAULT_OAUTH_URL });
      ctx.hooksOf('integrations.providers').providers.tap('integration-zoom', (list) => [...list, provider]);
    },
  });
}

export default createZoomPlugin();
