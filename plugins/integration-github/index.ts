import { definePlugin, type Plugin } from '../../core/plugin.ts';
import { githubIssuesKind } from './issues-kind.ts';
import { githubProvider } from './provider.ts';
import { DEFAULT_API_URL, GithubOptions } from './schemas.ts';

/**
 * GitHub as an integrations provider (tokens tested against its REST API, its signed webhook deliveries read, actions
 * for automations) and, when the sources plugin is on, the `github.issues` source kind.
 */
export function createGithubPlugin(): Plugin<GithubOptions> {
  return definePlugin<GithubOptions>({
    id: 'integration-github',
    version: '1.0.0',
    kernel: '^1.0.0',
    dependsOn: { integrations: '^1.0.0' },
    // The provider is useful without sources (connections, deliveries, actions); the kind needs them.
    optionalDependsOn: { sources: '^1.0.0' },
    optionsSchema: GithubOptions,
    register(ctx) {
      const apiUrl = ctx.options.apiUrl ?? DEFAULT_API_URL;
      const provider = githubProvider({ apiUrl });
      ctx.hooksOf('integrations.providers').providers.tap('integration-github', (list) => [...list, provider]);
      if (ctx.has('sources')) {
        const kind = githubIssuesKind({ apiUrl });
        ctx.hooksOf('sources.kinds').kinds.tap('integration-github', (list) => [...list, kind]);
      }
    },
  });
}

export default createGithubPlugin();
