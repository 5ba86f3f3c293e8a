import { definePlugin, type Plugin } from '../../core/plugin.ts';
import { postgresProvider } from './provider.ts';
import { PostgresOptions } from './schemas.ts';
import { postgresTableKind } from './table-kind.ts';

/** PostgreSQL as an integrations provider (a connection URL, tested read-only) and the `postgres.table` source kind. */
export function createPostgresPlugin(): Plugin<PostgresOptions> {
  return definePlugin<PostgresOptions>({
    id: 'integration-postgres',
    version: '1.0.0',
    kernel: '^1.0.0',
    dependsOn: { integrations: '^1.0.0' },
    // The provider is useful without sources (a tested connection); the kind needs them.
    optionalDependsOn: { sources: '^1.0.0' },
    optionsSchema: PostgresOptions,
    register(ctx) {
      const allowPrivateNetworks = ctx.options.allowPrivateNetworks ?? false;
      const provider = postgresProvider({ allowPrivateNetworks });
      ctx.hooksOf('integrations.providers').providers.tap('integration-postgres', (list) => [...list, provider]);
      if (ctx.has('sources')) {
        const kind = postgresTableKind({ allowPrivateNetworks });
        ctx.hooksOf('sources.kinds').kinds.tap('integration-postgres', (list) => [...list, kind]);
      }
    },
  });
}

export default createPostgresPlugin();
