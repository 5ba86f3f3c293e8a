import { inTransaction, type Db } from '../../core/db.ts';
import { invalidField, notFound } from '../../core/errors.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { Keyring } from '../../core/secret-box.ts';
import { hashSecret, randomSecret } from '../../core/secrets.ts';
import { CONNECTIONS, sealContext, type ConnectionService } from './connections.service.ts';
import { IntegrationErrors } from './errors.ts';
import type { IntegrationProvider } from './hooks.ts';
import { GrantRefused, OAuthClient, type OAuthTokens } from './oauth-client.ts';
import type { ProviderRegistry } from './providers.ts';
import type { Connection } from './schemas.ts';

const STATES = 'integration_oauth_states';
const STATE_TTL_MINUTES = 10;
/** An access token this close to its end is refreshed before it is used (or at half its life, for a short-lived one). */
const REFRESH_AHEAD_MS = 60_000;

/** A provider's API refused the access token (its 401): the caller asks for a refresh and tries once more. */
export class TokenRejected extends Error {}

/** The tokens as sealed in `credentials`, with when the access token ends. */
type StoredTokens = OAuthTokens & { obtained_at: string };

interface Deps {
  db: Db;
  providers: ProviderRegistry;
  connections: ConnectionService;
  secrets: Keyring;
  publicUrl: () => string;
  /** Tells the workspace's admins a connection needs to be authorized again (notifications, when on). */
  needsReauth: (trx: Db, connection: { id: string; workspace_id: string; name: string }, reason: string) => Promise<void>;
}

/**
 * OAuth 2 connections: the authorization code flow (PKCE, a one-time state bound to the user and the connection) and
 * the access token's upkeep. A token is refreshed before it ends or when the provider refuses it, one refresh at a time
 * per connection: callers in this process share one refresh, and a row lock makes other processes wait for it and use
 * its result. A refresh the provider refuses sets the connection to `needs_reauth` and tells the workspace's admins.
 */
export class ConnectionOAuth {
  private readonly refreshing = new Map<string, Promise<string>>();

  constructor(private readonly deps: Deps) {}

  callbackUrl(providerId: string): string {
    return `${this.deps.publicUrl()}/api/v1/integrations/${providerId}/oauth/callback`;
  }

  /** The state of a new pending connection and the provider URL to send the user to. */
  async start(trx: Db, provider: IntegrationProvider, connectionId: string, userId: string): Promise<string> {
    const client = this.client(provider);
    const state = randomSecret('', 43);
    const verifier = OAuthClient.verifier();
    const stateHash = hashSecret(state);
    await trx(STATES).where('expires_at', '<=', trx.fn.now()).delete();
    await trx(STATES).insert({
      state_hash: stateHash,
      connection_id: connectionId,
      user_id: userId,
      verifier: this.deps.secrets.get().seal(verifier, `${STATES}/${stateHash}`),
      redirect_uri: this.callbackUrl(provider.id),
      expires_at: trx.raw(`now() + interval '${STATE_TTL_MINUTES} minutes'`),
    });
    return client.authorizeUrl({ redirectUri: this.callbackUrl(provider.id), state, verifier });
  }

  /**
   * Completes a flow: the state must be live, this provider's and started by this user (anything else → 400, and the
   * state stays for its owner); it is spent once, then the code is traded for tokens and the connection is active.
   */
  async complete(principal: UserPrincipal, providerId: string, query: { code?: string; state: string; error?: string }): Promise<Connection> {
    const provider = this.deps.providers.find(providerId);
    if (!provider || provider.auth.type !== 'oauth2') throw notFound();
    const stateHash = hashSecret(query.state);
    const pending: { connection_id: string; user_id: string; workspace_id: string; provider: string; live: boolean } | undefined = await this.deps.db(STATES)
      .join(CONNECTIONS, `${CONNECTIONS}.id`, `${STATES}.connection_id`)
      .where({ state_hash: stateHash })
      .first(`${STATES}.connection_id`, `${STATES}.user_id`, `${CONNECTIONS}.workspace_id`, `${CONNECTIONS}.provider`, this.deps.db.raw(`${STATES}.expires_at > now() AS live`));
    if (!pending?.live || pending.user_id !== principal.user.id || pending.provider !== providerId) {
      throw IntegrationErrors.bad_state('This authorization is unknown, expired, already used or not yours; connect again.');
    }
    const { rows } = await this.deps.db.raw(`DELETE FROM ${STATES} WHERE state_hash = ? RETURNING verifier, redirect_uri`, [stateHash]);
    if (rows.length === 0) throw IntegrationErrors.bad_state('This authorization is already used; connect again.');
    if (query.error) throw IntegrationErrors.connection_failed(provider.name, `the authorization was not granted (${query.error.slice(0, 100)}).`);
    if (!query.code) throw invalidField('/query/code', 'Property "code" is required.');
    const verifier = this.deps.secrets.get().open(rows[0].verifier, `${STATES}/${stateHash}`);
    let tokens: OAuthTokens;
    try {
      tokens = await this.client(provider).exchange({ code: query.code, redirectUri: rows[0].redirect_uri, verifier });
    } catch (err) {
      throw IntegrationErrors.connection_failed(provider.name, err instanceof GrantRefused ? `the code was refused (${err.message}).` : 'the token endpoint could not be reached.');
    }
    const outcome = await provider.test({ access_token: tokens.access_token }).catch(() => ({ ok: false, detail: '', account: null }));
    await this.store(this.deps.db, pending.connection_id, tokens, { status: 'active', ...(outcome.ok && outcome.account ? { account: JSON.stringify(outcome.account) } : {}) });
    return this.deps.connections.get(pending.workspace_id, pending.connection_id);
  }

  /**
   * Revokes a connection's grant at its provider when the provider has a revocation endpoint (the refresh token, which
   * takes the access tokens with it; else the access token); whether it did. Failing to is not an error: the
   * connection's tokens are deleted with it either way.
   */
  async revoke(connectionId: string): Promise<boolean> {
    const row: { provider: string } | undefined = await this.deps.db(CONNECTIONS).where({ id: connectionId }).first('provider');
    const provider = row && this.deps.providers.find(row.provider);
    if (!provider || provider.auth.type !== 'oauth2' || !provider.auth.revokeUrl || !provider.auth.clientId || !provider.auth.clientSecret) return false;
    const tokens = (await this.deps.connections.credentialsOf(connectionId)) as Partial<StoredTokens>;
    const token = tokens.refresh_token ?? tokens.access_token;
    return token ? this.client(provider).revoke(token) : false;
  }

  /** A live access token of the connection, refreshed first when it ends within a minute. */
  async accessToken(connectionId: string): Promise<string> {
    const tokens = await this.tokensOf(this.deps.db, connectionId);
    if (!endsSoon(tokens)) return tokens.access_token;
    return this.refresh(connectionId, tokens.access_token);
  }

  /**
   * Calls the provider with the connection's access token; when `call` throws `TokenRejected` (the provider's 401),
   * the token is refreshed once and the call made again.
   */
  async withAccessToken<T>(connectionId: string, call: (token: string) => Promise<T>): Promise<T> {
    const token = await this.accessToken(connectionId);
    try {
      return await call(token);
    } catch (err) {
      if (!(err instanceof TokenRejected)) throw err;
      return call(await this.refresh(connectionId, token));
    }
  }

  /** A new access token in place of `stale`: one refresh per connection at a time, whoever asks. */
  refresh(connectionId: string, stale: string): Promise<string> {
    let running = this.refreshing.get(connectionId);
    if (!running) {
      running = this.refreshOnce(connectionId, stale).finally(() => this.refreshing.delete(connectionId));
      this.refreshing.set(connectionId, running);
    }
    return running;
  }

  private async refreshOnce(connectionId: string, stale: string): Promise<string> {
    let refusedBy = 'The provider';
    const token = await inTransaction(this.deps.db, async (trx) => {
      // Another process may hold the lock while it refreshes: once it commits, its token is read here and kept.
      const row = await trx(CONNECTIONS).where({ id: connectionId }).forUpdate().first('id', 'workspace_id', 'name', 'provider', 'status');
      if (!row) throw notFound();
      const tokens = await this.tokensOf(trx, connectionId);
      if (tokens.access_token !== stale && !endsSoon(tokens)) return tokens.access_token;
      const provider = this.deps.providers.find(row.provider);
      if (!provider) throw notFound();
      if (row.status === 'needs_reauth' || !tokens.refresh_token) throw IntegrationErrors.needs_reauth(provider.name);
      let fresh: OAuthTokens;
      try {
        fresh = await this.client(provider).refresh(tokens.refresh_token);
      } catch (err) {
        if (!(err instanceof GrantRefused)) throw IntegrationErrors.provider_unreachable(provider.name);
        refusedBy = provider.name;
        await trx(CONNECTIONS).where({ id: connectionId }).update({ status: 'needs_reauth', updated_at: trx.fn.now() });
        await this.deps.needsReauth(trx, row, `${provider.name} refused to refresh the access token (${err.error}).`);
        return undefined;
      }
      // A provider that does not rotate refresh tokens answers without one: the old one stays good.
      await this.store(trx, connectionId, { ...fresh, refresh_token: fresh.refresh_token ?? tokens.refresh_token }, {});
      return fresh.access_token;
    });
    // Thrown once the transaction has committed: the connection stays marked, and its admins told.
    if (token === undefined) throw IntegrationErrors.needs_reauth(refusedBy);
    return token;
  }

  private async tokensOf(db: Db, connectionId: string): Promise<StoredTokens> {
    const stored = await this.deps.connections.credentialsOf(connectionId, db);
    if (!stored.access_token) throw IntegrationErrors.needs_reauth('The provider');
    return stored as unknown as StoredTokens;
  }

  private async store(db: Db, connectionId: string, tokens: OAuthTokens, changes: Record<string, unknown>): Promise<void> {
    const sealed: StoredTokens = { ...tokens, obtained_at: new Date().toISOString() };
    await db(CONNECTIONS)
      .where({ id: connectionId })
      .update({
        ...changes,
        credentials: this.deps.secrets.get().seal(JSON.stringify(sealed), sealContext(connectionId, 'credentials')),
        expires_at: tokens.expires_in === null ? null : new Date(Date.now() + tokens.expires_in * 1000),
        ...(tokens.scope ? { scopes: JSON.stringify(tokens.scope.split(/[\s,]+/).filter(Boolean)) } : {}),
        updated_at: db.fn.now(),
      });
  }

  private client(provider: IntegrationProvider): OAuthClient {
    const auth = provider.auth;
    if (auth.type !== 'oauth2' || !auth.clientId || !auth.clientSecret) throw invalidField('/provider', `${provider.name} is not configured on this instance: set its clientId and clientSecret.`);
    return new OAuthClient({ ...auth, clientId: auth.clientId, clientSecret: auth.clientSecret });
  }
}

function endsSoon(tokens: StoredTokens): boolean {
  if (tokens.expires_in === null) return false;
  const lifetime = tokens.expires_in * 1000;
  // A token that lives less than twice the lead would be refreshed on every use: it is refreshed at half its life instead.
  return Date.parse(tokens.obtained_at) + lifetime - Math.min(REFRESH_AHEAD_MS, lifetime / 2) <= Date.now();
}
