import { definePlugin, type Plugin } from '../../core/plugin.ts';
import { icalEventsKind } from './kind.ts';
import { icalProvider } from './provider.ts';

/** iCalendar feeds: the `ical` provider (no connection) and the `ical.events` source kind. */
export function createIcalPlugin(): Plugin {
  return definePlugin({
    id: 'integration-ical',
    version: '1.0.0',
    kernel: '^1.0.0',
    dependsOn: { integrations: '^1.0.0', sources: '^1.0.0' },
    register(ctx) {
      const provider = icalProvider();
      const kind = icalEventsKind();
      ctx.hooksOf('integrations.providers').providers.tap('integration-ical', (list) => [...list, provider]);
      ctx.hooksOf('sources.kinds').kinds.tap('integration-ical', (list) => [...list, kind]);
    },
  });
}

export default createIcalPlugin();
