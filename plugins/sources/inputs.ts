import type { ConnectionOAuth, ConnectionService, IntegrationProvider } from '../integrations/public.ts';
import type { SourceInput } from './hooks.ts';

export interface SourceInputDeps {
  connections: () => ConnectionService;
  oauth: () => ConnectionOAuth;
  provider: (id: string) => IntegrationProvider | undefined;
  allowPrivateNetworks: boolean;
}

/** What a kind is handed: the config, the connection's credentials opened (an OAuth connection's live token), the address rule. */
export class SourceInputs {
  constructor(private readonly deps: SourceInputDeps) {}

  /** The input of a kind reading through `connectionId` of `providerId` (both null for a kind that needs no connection). */
  async forConfig(providerId: string | null, connectionId: string | null, config: Record<string, unknown>, signal: AbortSignal = new AbortController().signal, now = new Date()): Promise<SourceInput> {
    const credentials = providerId && connectionId ? await this.credentials(providerId, connectionId) : null;
    return { config, credentials, signal, allowPrivateNetworks: this.deps.allowPrivateNetworks, now };
  }

  /** Where a kind's provider pushes to for `connectionId`, and the token it proves itself with; undefined when it takes no deliveries. */
  async pushTarget(providerId: string, connectionId: string): Promise<{ address: string; token: string } | undefined> {
    const provider = this.deps.provider(providerId);
    const address = provider && this.deps.connections().webhookUrl(provider, connectionId);
    const receiver = address ? await this.deps.connections().forReceiver(providerId, connectionId) : undefined;
    return address && receiver?.secret ? { address, token: receiver.secret } : undefined;
  }

  connectionExists(workspaceId: string, connectionId: string, providerId: string): Promise<boolean> {
    return this.deps.connections().exists(workspaceId, connectionId, providerId);
  }

  private async credentials(providerId: string, connectionId: string): Promise<Record<string, string>> {
    if (this.deps.provider(providerId)?.auth.type === 'oauth2') return { access_token: await this.deps.oauth().accessToken(connectionId) };
    return this.deps.connections().credentialsOf(connectionId);
  }
}
