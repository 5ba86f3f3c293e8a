import * as oauth from 'oauth4webapi';
import { isLoopback } from '../../core/public-url.ts';
import type { ProviderAuth } from './hooks.ts';

type OAuth2 = Extract<ProviderAuth, { type: 'oauth2' }>;

const TIMEOUT_MS = 10_000;

/** The tokens a connection keeps (sealed): what the provider's token endpoint answered. */
export interface OAuthTokens {
  access_token: string;
  refresh_token?: string;
  token_type: string;
  /** Seconds the access token lives, as answered (null when the provider does not say). */
  expires_in: number | null;
  scope: string | null;
}

/** Why the provider refused a code or a refresh: `invalid_grant` and the like (the grant is gone), not an outage. */
export class GrantRefused extends Error {
  constructor(readonly error: string, detail: string) {
    super(detail);
  }
}

/** The provider could not be reached, or answered something that is not an OAuth answer. */
export class ProviderUnreachable extends Error {}

/**
 * OAuth 2 authorization code with PKCE (RFC 6749, RFC 7636) and refresh, through `oauth4webapi`, which checks every
 * answer as the RFCs say. Plain http is allowed only for a loopback token endpoint (the tests' servers).
 */
export class OAuthClient {
  private readonly as: oauth.AuthorizationServer;
  private readonly client: oauth.Client;
  private readonly auth: oauth.ClientAuth;
  private readonly options: oauth.TokenEndpointRequestOptions;

  constructor(private readonly config: OAuth2 & { clientId: string; clientSecret: string }) {
    const token = new URL(config.tokenUrl);
    this.as = { issuer: config.issuer ?? token.origin, authorization_endpoint: config.authorizeUrl, token_endpoint: config.tokenUrl, ...(config.revokeUrl ? { revocation_endpoint: config.revokeUrl } : {}) };
    this.client = { client_id: config.clientId };
    this.auth = oauth.ClientSecretPost(config.clientSecret);
    this.options = {
      signal: AbortSignal.timeout(TIMEOUT_MS),
      ...(token.protocol === 'http:' && isLoopback(token.hostname) ? { [oauth.allowInsecureRequests]: true } : {}),
    };
  }

  static verifier(): string {
    return oauth.generateRandomCodeVerifier();
  }

  async authorizeUrl(input: { redirectUri: string; state: string; verifier: string }): Promise<string> {
    const url = new URL(this.config.authorizeUrl);
    for (const [name, value] of Object.entries(this.config.authorizeParams ?? {})) url.searchParams.set(name, value);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', this.config.clientId);
    url.searchParams.set('redirect_uri', input.redirectUri);
    if (this.config.scopes.length > 0) url.searchParams.set('scope', this.config.scopes.join(' '));
    url.searchParams.set('state', input.state);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(input.verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    return url.toString();
  }

  exchange(input: { code: string; redirectUri: string; verifier: string }): Promise<OAuthTokens> {
    return this.tokens(async () => {
      // The state was checked (and spent) by the caller, against its own store.
      const params = oauth.validateAuthResponse(this.as, this.client, new URLSearchParams({ code: input.code }), oauth.skipStateCheck);
      const res = await oauth.authorizationCodeGrantRequest(this.as, this.client, this.auth, params, input.redirectUri, input.verifier, this.requestOptions());
      return oauth.processAuthorizationCodeResponse(this.as, this.client, res);
    });
  }

  refresh(refreshToken: string): Promise<OAuthTokens> {
    return this.tokens(async () => {
      const res = await oauth.refreshTokenGrantRequest(this.as, this.client, this.auth, refreshToken, this.requestOptions());
      return oauth.processRefreshTokenResponse(this.as, this.client, res);
    });
  }

  /** Revokes a token at the provider (RFC 7009); whether it could. A provider without a revocation endpoint cannot. */
  async revoke(token: string): Promise<boolean> {
    if (!this.as.revocation_endpoint) return false;
    try {
      await oauth.processRevocationResponse(await oauth.revocationRequest(this.as, this.client, this.auth, token, this.requestOptions()));
      return true;
    } catch {
      return false;
    }
  }

  private requestOptions(): oauth.TokenEndpointRequestOptions {
    return { ...this.options, signal: AbortSignal.timeout(TIMEOUT_MS) };
  }

  private async tokens(call: () => Promise<oauth.TokenEndpointResponse>): Promise<OAuthTokens> {
    let answer: oauth.TokenEndpointResponse;
    try {
      answer = await call();
    } catch (err) {
      if (err instanceof oauth.ResponseBodyError) throw new GrantRefused(err.error, `${err.error}${err.error_description ? `: ${err.error_description}` : ''}`);
      throw new ProviderUnreachable((err as Error).message);
    }
    return {
      access_token: answer.access_token,
      ...(answer.refresh_token ? { refresh_token: answer.refresh_token } : {}),
      token_type: answer.token_type,
      expires_in: typeof answer.expires_in === 'number' ? answer.expires_in : null,
      scope: typeof answer.scope === 'string' ? answer.scope : null,
    };
  }
}
