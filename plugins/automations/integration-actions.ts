import { Type } from '../../core/schema.ts';
import { ActionFailed, type ConnectionOAuth, type ConnectionService, type IntegrationProvider, type ProviderAction } from '../integrations/public.ts';
import { StepFailed, type ActionDefinition } from './actions.ts';

interface Deps {
  providers: () => IntegrationProvider[];
  connections: () => ConnectionService;
  oauth: () => ConnectionOAuth;
}

type WithConnection = Record<string, unknown> & { connection_id: string };

/**
 * The providers' actions as automation actions: each config names the connection to act through (`connection_id`, one of
 * the workspace's connections to that provider, checked at save), and the action gets its credentials at run time, an
 * OAuth connection's access token refreshed as needed. In a pack the connection is said by ref (kind `connection`:
 * its provider and name), and installed onto a connection of the target workspace.
 */
export function integrationActions(deps: Deps): ActionDefinition<WithConnection>[] {
  return deps.providers().flatMap((provider) => (provider.actions ?? []).map((action) => definition(provider, action, deps)));
}

function definition(provider: IntegrationProvider, action: ProviderAction, deps: Deps): ActionDefinition<WithConnection> {
  const schema = Type.Composite([Type.Object({ connection_id: Type.String({ format: 'uuid', description: `One of the workspace's ${provider.name} connections.` }) }), action.schema], {
    additionalProperties: false,
    description: action.summary,
  });
  return {
    type: action.type,
    schema,
    retrySafe: action.retrySafe,
    async check(req) {
      if (!(await deps.connections().exists(req.workspaceId, req.config.connection_id, provider.id, req.db))) {
        req.errors.push({ pointer: `${req.pointer}/connection_id`, detail: `No ${provider.name} connection with this id in the workspace.` });
      }
    },
    async run(ctx) {
      const { connection_id: connectionId, ...config } = ctx.config;
      if (!(await deps.connections().exists(ctx.workspaceId, connectionId, provider.id))) throw new StepFailed(`The ${provider.name} connection is gone.`);
      try {
        if (provider.auth.type === 'oauth2') return await deps.oauth().withAccessToken(connectionId, (token) => action.run({ credentials: { access_token: token }, config }));
        return await action.run({ credentials: await deps.connections().credentialsOf(connectionId), config });
      } catch (err) {
        if (err instanceof ActionFailed) throw new StepFailed(`${provider.name}: ${err.message}`);
        throw err;
      }
    },
    dryRun: async (ctx) => ({ provider: provider.id, action: action.type, ...ctx.config }),
    // The connection travels by ref: a pack says which provider and name it acted through, never its credentials.
    pack: {
      out: (config, ref) => {
        const connection = ref('connection', config.connection_id);
        return connection === undefined ? undefined : { ...config, connection_id: connection };
      },
      in: (config, id, pointer) => ({ ...config, connection_id: id('connection', config.connection_id, `${pointer}/connection_id`) }),
    },
  };
}
