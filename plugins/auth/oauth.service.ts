import { createHash } from 'node:crypto';
import type { Db } from '../../core/db.ts';
import { forbidden, invalidField, notFound, unauthenticated } from '../../core/errors.ts';
import { hashSecret, randomSecret } from '../../core/secrets.ts';
import { exchangeCode, fetchProfile, type ProviderProfile } from './oauth-client.ts';
import type { OAuthProvider } from './oauth-providers.ts';
import type { UserRow, UserService } from './users.service.ts';

const STATE_TTL_MINUTES = 10;

/** The authorization-code flow with PKCE (RFC 6749 §4.1, RFC 7636) for the providers configured in the options. */
export class OAuthService {
  constructor(
    private readonly db: Db,
    private readonly users: UserService,
    readonly providers: ReadonlyMap<string, OAuthProvider>,
  ) {}

  provider(id: string): OAuthProvider {
    const p = this.providers.get(id);
    if (!p) throw notFound(`No OAuth provider "${id}" is configured.`);
    return p;
  }

  /** Remembers a fresh state (hashed) and PKCE verifier, and returns the provider URL to send the browser to. */
  async start(p: OAuthProvider, redirectUri: string): Promise<string> {
    const state = randomSecret('', 43);
    const codeVerifier = randomSecret('', 64);
    await this.db('auth_oauth_states').where('expires_at', '<=', this.db.fn.now()).delete();
    await this.db('auth_oauth_states').insert({
      state_hash: hashSecret(state),
      provider: p.id,
      code_verifier: codeVerifier,
      redirect_uri: redirectUri,
      expires_at: this.db.raw(`now() + interval '${STATE_TTL_MINUTES} minutes'`),
    });
    const url = new URL(p.authorizeUrl);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', p.clientId);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('scope', p.scopes.join(' '));
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', createHash('sha256').update(codeVerifier).digest('base64url'));
    url.searchParams.set('code_challenge_method', 'S256');
    return url.toString();
  }

  /** Consumes the state, trades the code for the provider's profile, and returns the Tessera user it signs in. */
  async complete(providerId: string, input: { code?: string; state: string; error?: string }): Promise<UserRow> {
    const p = this.provider(providerId);
    const { rows } = await this.db.raw<{ rows: Array<{ code_verifier: string; redirect_uri: string; live: boolean }> }>(
      `DELETE FROM auth_oauth_states WHERE state_hash = ? AND provider = ?
       RETURNING code_verifier, redirect_uri, expires_at > now() AS live`,
      [hashSecret(input.state), p.id],
    );
    const pending = rows[0];
    if (!pending?.live) throw invalidField('/query/state', 'This sign-in attempt is unknown, expired or already used; start again.');
    if (input.error) throw unauthenticated(`${p.name} did not authorize the sign-in (${input.error}).`);
    if (!input.code) throw invalidField('/query/code', 'Property "code" is required.');
    const accessToken = await exchangeCode(p, { code: input.code, redirectUri: pending.redirect_uri, codeVerifier: pending.code_verifier });
    return this.userFor(p, await fetchProfile(p, accessToken));
  }

  /**
   * The user linked to this provider account; else the user with its verified email (now linked);
   * else a new user, under the `signUp` policy. A disabled user is refused before anything is linked.
   */
  private async userFor(p: OAuthProvider, profile: ProviderProfile): Promise<UserRow> {
    const email = profile.email;
    if (!email) throw forbidden(`Your ${p.name} account has no verified email address; verify one there and try again.`);
    return this.users.withCreationLock(async (trx) => {
      const link = await trx('auth_identities').where({ provider: p.id, subject: profile.subject }).first('user_id');
      const user =
        (link && (await this.users.findById(link.user_id, trx))) ||
        (await this.users.findByEmail(email, trx)) ||
        (await this.users.signUp({ email, name: (profile.name?.trim() || email.split('@')[0]).slice(0, 200) }, trx));
      if (user.disabled_at) throw unauthenticated('This account is disabled.');
      if (link) {
        await trx('auth_identities').where({ provider: p.id, subject: profile.subject }).update({ email, last_used_at: trx.fn.now() });
      } else {
        await trx('auth_identities').insert({ provider: p.id, subject: profile.subject, user_id: user.id, email });
      }
      return user;
    });
  }
}
