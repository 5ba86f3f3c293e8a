import { definePlugin, type Plugin } from '../../core/plugin.ts';
import { googleCalendarProvider } from './provider.ts';
import { DEFAULT_API_URL, DEFAULT_AUTHORIZE_URL, DEFAULT_REVOKE_URL, DEFAULT_TOKEN_URL, GoogleCalendarOptions } from './schemas.ts';

/** Google Calendar as an integrations provider: OAuth connections, push notifications read, events created by automations. */
export function createGoogleCalendarPlugin(): Plugin<GoogleCalendarOptions> {
  return definePlugin<GoogleCalendarOptions>({
    id: 'integration-google-calendar',
    version: '1.0.0',
    kernel: '^1.0.0',
    dependsOn: { integrations: '^1.0.0' },
    optionsSchema: GoogleCalendarOptions,
    register(ctx) {
      const provider = googleCalendarProvider({
        apiUrl: ctx.options.apiUrl ?? DEFAULT_API_URL,
        clientId: ctx.options.clientId,
        clientSecret: ctx.options.clientSecret,
        authorizeUrl: ctx.options.authorizeUrl ?? DEFAULT_AUTHORIZE_URL,
        tokenUrl: ctx.options.tokenUrl ?? DEFAULT_TOKEN_URL,
        revokeUrl: ctx.options.revokeUrl ?? DEFAULT_REVOKE_URL,
      });
      ctx.hooksOf('integrations.providers').providers.tap('integration-google-calendar', (list) => [...list, provider]);
    },
  });
}

export default createGoogleCalendarPlugin();
