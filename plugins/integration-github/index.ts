import { definePlugin, type Plugin } from '../../core/plugin.ts';
import { githubProvider } from './provider.ts';
import { DEFAULT_API_URL, GithubOptions } from './schemas.ts';

/** GitHub as an integrations provider: tokens tested against its REST API, its signed webhook deliveries read. */
export function createGithubPlugin(): Plugin<GithubOptions> {
  return definePlugin<GithubOptions>({
    id: 'integration-github',
    version: '1.0.0',
    kernel: '^1.0.0',
    dependsOn: { integrations: '^1.0.0' },
    optionsSchema: GithubOptions,
    register(ctx) {
      const provider = githubProvider({ apiUrl: ctx.options.apiUrl ?? DEFAULT_API_URL });
      ctx.hooksOf('integrations.providers').providers.tap('integration-github', (list) => [...list, provider]);
    },
  });
}

export default createGithubPlugin();
