import { definePlugin, type Plugin } from '../../core/plugin.ts';
import { slackProvider } from './provider.ts';
import { DEFAULT_API_URL, SlackOptions } from './schemas.ts';

/** Slack as an integrations provider: bot tokens tested with `auth.test`, its signed requests (events, commands, interactions) read. */
export function createSlackPlugin(): Plugin<SlackOptions> {
  return definePlugin<SlackOptions>({
    id: 'integration-slack',
    version: '1.0.0',
    kernel: '^1.0.0',
    dependsOn: { integrations: '^1.0.0' },
    optionsSchema: SlackOptions,
    register(ctx) {
      const provider = slackProvider({ apiUrl: ctx.options.apiUrl ?? DEFAULT_API_URL });
      ctx.hooksOf('integrations.providers').providers.tap('integration-slack', (list) => [...list, provider]);
    },
  });
}

export default createSlackPlugin();
