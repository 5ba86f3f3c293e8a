import { inTransaction, type Db } from '../../core/db.ts';
import { AppError, forbidden, invalidField, notFound, validationFailed } from '../../core/errors.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { randomSecret } from '../../core/secrets.ts';
import { SealBroken, type Keyring } from '../../core/secret-box.ts';
import { IntegrationErrors } from './errors.ts';
import type { Credentials, IntegrationProvider } from './hooks.ts';
import type { ConnectionOAuth } from './oauth.service.ts';
import type { ProviderRegistry } from './providers.ts';
import type { Connection, CreateConnectionBody, CreatedConnection, PatchConnectionBody } from './schemas.ts';

export const CONNECTIONS = 'integration_connections';
const COLUMNS = ['id', 'workspace_id', 'provider', 'name', 'status', 'account', 'scopes', 'created_by', 'created_at', 'last_used_at', 'expires_at'];

export interface ConnectionRow {
  id: string;
  workspace_id: string;
  provider: string;
  name: string;
  status: Connection['status'];
  account: { id: string; name: string } | null;
  scopes: string[];
  created_by: string | null;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
}

/** Why a connection's sealed values do not open: the instance key they were sealed under is gone. */
export const UNREADABLE = "This connection's credentials cannot be opened with the instance's keys (was the secret key changed without keeping the old one in previousKeys?): connect it again.";

/** What a sealed column's context is: the connection and the column, so a value copied elsewhere does not open. */
export const sealContext = (connectionId: string, column: 'credentials' | 'webhook_secret') => `integration_connections/${connectionId}/${column}`;

interface Deps {
  db: Db;
  providers: ProviderRegistry;
  secrets: Keyring;
  /** The instance's public address, for the receivers' URLs. */
  publicUrl: () => string;
  /** The OAuth flows, for a connection to an `oauth2` provider. */
  oauth: () => ConnectionOAuth;
}

/**
 * A workspace's connections to providers. Credentials are tested with the provider before anything is stored, sealed
 * under the instance key, and never leave: no answer, export or log carries them. A provider that signs its deliveries
 * with a shared secret gets one (given or made) shown once, in the create answer.
 */
export class ConnectionService {
  constructor(private readonly deps: Deps) {}

  webhookUrl(provider: IntegrationProvider, connectionId: string): string | null {
    return provider.verifyWebhook ? `${this.deps.publicUrl()}/api/v1/integrations/${provider.id}/webhook/${connectionId}` : null;
  }

  present(row: ConnectionRow): Connection {
    const provider = this.deps.providers.find(row.provider);
    return {
      id: row.id,
      workspace_id: row.workspace_id,
      provider: row.provider,
      name: row.name,
      status: row.status,
      account: row.account,
      scopes: row.scopes,
      webhook_url: provider ? this.webhookUrl(provider, row.id) : null,
      created_by: row.created_by,
      created_at: row.created_at.toISOString(),
      last_used_at: row.last_used_at?.toISOString() ?? null,
      expires_at: row.expires_at?.toISOString() ?? null,
    };
  }

  async create(principal: UserPrincipal, workspaceId: string, body: CreateConnectionBody): Promise<CreatedConnection> {
    const provider = this.deps.providers.find(body.provider);
    if (!provider) throw invalidField('/provider', `"${body.provider}" is not a provider of this instance (GET /integrations lists them).`);
    if (provider.instanceAdminsOnly && !principal.user.is_instance_admin) throw forbidden(`Only an instance admin may connect ${provider.name}: its deliveries act on the whole instance.`);
    if (body.webhook_secret !== undefined && !provider.signsWithSharedSecret) {
      throw invalidField('/webhook_secret', `${provider.name} does not sign its deliveries with a shared secret.`);
    }
    if (provider.auth.type === 'oauth2' && !(provider.auth.clientId && provider.auth.clientSecret)) {
      throw invalidField('/provider', `${provider.name} is not configured on this instance: its plugin needs clientId and clientSecret.`);
    }
    const credentials = this.checkedCredentials(provider, body.credentials);
    let account: ConnectionRow['account'] = null;
    if (provider.auth.type === 'api_key') {
      const outcome = await provider.test(credentials);
      if (!outcome.ok) throw IntegrationErrors.connection_failed(provider.name, outcome.detail);
      account = outcome.account ?? null;
    }
    const webhookSecret = provider.signsWithSharedSecret ? (body.webhook_secret ?? randomSecret('whsec_', 40)) : null;
    const box = this.deps.secrets.get();
    const id = crypto.randomUUID();
    const oauth = provider.auth.type === 'oauth2';
    const { row, authorizeUrl } = await inTransaction(this.deps.db, async (trx) => {
      const [row] = await trx(CONNECTIONS)
        .insert({
          id,
          workspace_id: workspaceId,
          provider: provider.id,
          name: body.name,
          status: oauth ? 'pending' : 'active',
          account: account && JSON.stringify(account),
          scopes: JSON.stringify(provider.auth.type === 'oauth2' ? provider.auth.scopes : []),
          credentials: provider.auth.type === 'api_key' ? box.seal(JSON.stringify(credentials), sealContext(id, 'credentials')) : null,
          webhook_secret: webhookSecret && box.seal(webhookSecret, sealContext(id, 'webhook_secret')),
          created_by: principal.user.id,
          last_used_at: provider.auth.type === 'api_key' ? new Date() : null,
        })
        .returning(COLUMNS);
      return { row: row as ConnectionRow, authorizeUrl: oauth ? await this.deps.oauth().start(trx, provider, id, principal.user.id) : undefined };
    });
    return { ...this.present(row), ...(webhookSecret ? { webhook_secret: webhookSecret } : {}), ...(authorizeUrl ? { authorize_url: authorizeUrl } : {}) };
  }

  async list(workspaceId: string, page: { limit?: number; cursor?: string }): Promise<Page<Connection>> {
    const q = this.deps.db(CONNECTIONS).where({ workspace_id: workspaceId }).select(COLUMNS);
    const rows = await keysetPage<ConnectionRow>(this.deps.db, q, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'desc' }, page);
    return { data: rows.data.map((r) => this.present(r)), next_cursor: rows.next_cursor };
  }

  async get(workspaceId: string, id: string): Promise<Connection> {
    return this.present(await this.row(this.deps.db, workspaceId, id));
  }

  /** Tests the stored credentials with the provider again; a passing test notes the connection as used. */
  async test(workspaceId: string, id: string): Promise<{ ok: boolean; detail: string }> {
    const row = await this.row(this.deps.db, workspaceId, id);
    const provider = this.deps.providers.find(row.provider);
    if (!provider) return { ok: false, detail: `The ${row.provider} provider is not enabled on this instance.` };
    if (row.status === 'pending') return { ok: false, detail: `The connection waits for its ${provider.name} authorization to complete.` };
    let credentials: Credentials;
    try {
      credentials = provider.auth.type === 'oauth2' ? { access_token: await this.deps.oauth().accessToken(row.id) } : await this.credentialsOf(row.id);
    } catch (err) {
      if (err instanceof AppError) return { ok: false, detail: err.detail ?? err.message };
      if (err instanceof SealBroken) return { ok: false, detail: UNREADABLE };
      throw err;
    }
    const outcome = await provider.test(credentials);
    if (outcome.ok) await this.deps.db(CONNECTIONS).where({ id }).update({ last_used_at: new Date(), ...(outcome.account ? { account: JSON.stringify(outcome.account) } : {}) });
    return { ok: outcome.ok, detail: outcome.detail };
  }

  /**
   * Renames a connection, gives it new API-key credentials (tested with the provider first: refused ones change
   * nothing) or the provider's new signing secret.
   */
  async update(workspaceId: string, id: string, body: PatchConnectionBody): Promise<Connection> {
    const row = await this.row(this.deps.db, workspaceId, id);
    const provider = this.deps.providers.find(row.provider);
    if (!provider && (body.credentials || body.webhook_secret)) throw invalidField('/credentials', `The ${row.provider} provider is not enabled on this instance.`);
    const changes: Record<string, unknown> = { updated_at: new Date() };
    if (body.name !== undefined) changes.name = body.name;
    if (body.webhook_secret !== undefined) {
      if (!provider!.signsWithSharedSecret) throw invalidField('/webhook_secret', `${provider!.name} does not sign its deliveries with a shared secret.`);
      changes.webhook_secret = this.deps.secrets.get().seal(body.webhook_secret, sealContext(id, 'webhook_secret'));
    }
    if (body.credentials !== undefined) {
      if (provider!.auth.type !== 'api_key') throw invalidField('/credentials', `${provider!.name} connects through ${provider!.auth.type === 'oauth2' ? 'OAuth' : 'nothing'}, not credentials.`);
      const credentials = this.checkedCredentials(provider!, body.credentials);
      const outcome = await provider!.test(credentials);
      if (!outcome.ok) throw IntegrationErrors.connection_failed(provider!.name, outcome.detail);
      Object.assign(changes, {
        credentials: this.deps.secrets.get().seal(JSON.stringify(credentials), sealContext(id, 'credentials')),
        account: outcome.account ? JSON.stringify(outcome.account) : null,
        status: 'active',
        last_used_at: new Date(),
      });
    }
    const [updated] = await this.deps.db(CONNECTIONS).where({ workspace_id: workspaceId, id }).update(changes).returning(COLUMNS);
    if (!updated) throw notFound();
    return this.present(updated);
  }

  /** Provider and name of the workspace's connections among `ids` (what a pack says of them). */
  async described(trx: Db, workspaceId: string, ids: string[]): Promise<Array<{ id: string; provider: string; name: string }>> {
    if (ids.length === 0) return [];
    return trx(CONNECTIONS).where({ workspace_id: workspaceId }).whereIn('id', ids).orderBy(['created_at', 'id']).select('id', 'provider', 'name');
  }

  /** The workspace's connection a pack's `{ provider, name }` stands for: that name if there is one, else the oldest active. */
  async matching(trx: Db, workspaceId: string, provider: string, name: string): Promise<string | undefined> {
    const rows: Array<{ id: string; name: string }> = await trx(CONNECTIONS).where({ workspace_id: workspaceId, provider, status: 'active' }).orderBy(['created_at', 'id']).select('id', 'name');
    return (rows.find((r) => r.name === name) ?? rows[0])?.id;
  }

  /** Whether the workspace has this connection to this provider. */
  async exists(workspaceId: string, id: string, providerId: string, trx: Db = this.deps.db): Promise<boolean> {
    return Boolean(await trx(CONNECTIONS).where({ workspace_id: workspaceId, id, provider: providerId }).first('id'));
  }

  /** Deletes a connection with its inbox, revoking its OAuth grant at the provider first where the provider can. */
  async delete(workspaceId: string, id: string): Promise<void> {
    await this.row(this.deps.db, workspaceId, id);
    await this.deps.oauth().revoke(id);
    const deleted = await this.deps.db(CONNECTIONS).where({ workspace_id: workspaceId, id }).delete();
    if (deleted === 0) throw notFound();
  }

  /** A connection's credentials, opened (for the provider's calls; never for an answer). */
  async credentialsOf(id: string, trx: Db = this.deps.db): Promise<Credentials> {
    const row: { credentials: string | null } | undefined = await trx(CONNECTIONS).where({ id }).first('credentials');
    if (!row?.credentials) return {};
    return JSON.parse(this.deps.secrets.get().open(row.credentials, sealContext(id, 'credentials')));
  }

  /** The connection a receiver names, with its signing secret opened; undefined when it is not the provider's. */
  async forReceiver(providerId: string, id: string): Promise<{ workspaceId: string; secret: string | null } | undefined> {
    const row: { workspace_id: string; webhook_secret: string | null; status: string } | undefined = await this.deps.db(CONNECTIONS)
      .where({ id, provider: providerId })
      .first('workspace_id', 'webhook_secret', 'status');
    if (!row || row.status === 'revoked') return undefined;
    return { workspaceId: row.workspace_id, secret: row.webhook_secret && this.deps.secrets.get().open(row.webhook_secret, sealContext(id, 'webhook_secret')) };
  }

  /** Every sealed value sealed again under the current key (`npm run rotate-secret-key`), in the rotation's transaction. */
  async reseal(trx: Db, box: ReturnType<Keyring['get']>): Promise<number> {
    const rows: Array<{ id: string; credentials: string | null; webhook_secret: string | null }> = await trx(CONNECTIONS).select('id', 'credentials', 'webhook_secret').forUpdate();
    let moved = 0;
    for (const row of rows) {
      const credentials = row.credentials && box.reseal(row.credentials, sealContext(row.id, 'credentials'));
      const webhookSecret = row.webhook_secret && box.reseal(row.webhook_secret, sealContext(row.id, 'webhook_secret'));
      if (credentials === row.credentials && webhookSecret === row.webhook_secret) continue;
      await trx(CONNECTIONS).where({ id: row.id }).update({ credentials, webhook_secret: webhookSecret });
      moved++;
    }
    return moved;
  }

  private async row(db: Db, workspaceId: string, id: string): Promise<ConnectionRow> {
    const row = await db(CONNECTIONS).where({ workspace_id: workspaceId, id }).first(COLUMNS);
    if (!row) throw notFound();
    return row;
  }

  /** Exactly the provider's fields, each given: anything else is refused at its pointer before the provider is asked. */
  private checkedCredentials(provider: IntegrationProvider, given: Record<string, string> | undefined): Credentials {
    const fields = provider.auth.type === 'api_key' ? provider.auth.fields : [];
    const errors = [
      ...fields.filter((f) => given?.[f.name] === undefined).map((f) => ({ pointer: `/credentials/${f.name}`, detail: `${provider.name} needs "${f.label}".` })),
      ...Object.keys(given ?? {})
        .filter((name) => !fields.some((f) => f.name === name))
        .map((name) => ({ pointer: `/credentials/${name}`, detail: `${provider.name} takes no credential "${name}".` })),
    ];
    if (errors.length > 0) throw validationFailed(errors);
    return { ...given };
  }
}
