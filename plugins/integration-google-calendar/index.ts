import { definePlugin, type Plugin } from '../../core/plugin.ts';
import { googleCalendarEventsKind } from './events-kind.ts';
import { googleCalendarProvider } from './provider.ts';
import { DEFAULT_API_URL, DEFAULT_AUTHORIZE_URL, DEFAULT_REVOKE_URL, DEFAULT_TOKEN_URL, GoogleCalendarOptions } from './schemas.ts';

/**
 * Google Calendar as an integrations provider (OAuth connections, push notifications read, events created by
 * automations) and, with the sources plugin, the `google_calendar.events` source kind.
 */
export function createGoogleCalendarPlugin(): Plugin<GoogleCalendarOptions> {
  return definePlugin<GoogleCalendarOptions>({
    id: 'integration-google-calendar',
    version: '1.0.0',
    kernel: '^1.0.0',
    dependsOn: { integrations: '^1.0.0' },
    // The provider is useful without sources (automations, notifications); the kind needs them.
    optionalDependsOn: { sources: '^1.0.0' },
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
      if (ctx.has('sources')) {
        const kind = googleCalendarEventsKind({ apiUrl: ctx.options.apiUrl ?? DEFAULT_API_URL });
        ctx.hooksOf('sources.kinds').kinds.tap('integration-google-calendar', (list) => [...list, kind]);
      }
    },
  });
}

export default createGoogleCalendarPlugin();
