import { providerError } from '../../core/errors.ts';
import { compile } from '../../core/schema.ts';
import { Email } from './schemas.ts';
import type { OAuthProvider } from './oauth-providers.ts';

/** The account at the provider, reduced to what Tessera needs; `email` is set only when the provider says it is verified. */
export interface ProviderProfile {
  subject: string;
  email: string | null;
  name: string | null;
}

const TIMEOUT_MS = 10_000;
// GitHub's API refuses requests without a User-Agent.
const USER_AGENT = 'Tessera';

async function callProvider(p: OAuthProvider, what: string, url: string, init: RequestInit): Promise<any> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch {
    throw providerError(`${p.name} could not be reached for the ${what}.`);
  }
  const body = await res.json().catch(() => undefined);
  if (!res.ok) {
    const code = typeof body?.error === 'string' ? `: ${body.error}` : '';
    throw providerError(`${p.name} refused the ${what} (HTTP ${res.status}${code}).`);
  }
  if (body === undefined) throw providerError(`${p.name} answered the ${what} with something other than JSON.`);
  return body;
}

/** Authorization-code grant (RFC 6749 §4.1.3) with the PKCE verifier; client credentials go in the form (client_secret_post). */
export async function exchangeCode(p: OAuthProvider, input: { code: string; redirectUri: string; codeVerifier: string }): Promise<string> {
  const body = await callProvider(p, 'token request', p.tokenUrl, {
    method: 'POST',
    headers: { Accept: 'application/json', 'Content-Type': 'application/x-www-form-urlencoded', 'User-Agent': USER_AGENT },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: input.code,
      redirect_uri: input.redirectUri,
      client_id: p.clientId,
      client_secret: p.clientSecret,
      code_verifier: input.codeVerifier,
    }),
  });
  // GitHub reports a bad code with 200 and an `error` member.
  if (typeof body.error === 'string') throw providerError(`${p.name} refused the authorization code (${body.error}).`);
  if (typeof body.access_token !== 'string' || !body.access_token) throw providerError(`${p.name} returned no access token.`);
  return body.access_token;
}

const isEmail = compile(Email);
const verifiedEmail = (email: unknown, verified: unknown): string | null =>
  (verified === true || verified === 'true') && typeof email === 'string' && isEmail(email) ? email : null;

async function githubProfile(p: OAuthProvider, headers: Record<string, string>): Promise<ProviderProfile> {
  const user = await callProvider(p, 'profile request', p.userInfoUrl, { headers });
  if (typeof user.id !== 'number' && typeof user.id !== 'string') throw providerError(`${p.name} returned a profile without an id.`);
  // The profile's `email` is the public one and may be unverified; /user/emails says which are verified.
  const emails = await callProvider(p, 'email request', `${p.userInfoUrl.replace(/\/+$/, '')}/emails`, { headers });
  const verified = (Array.isArray(emails) ? emails : []).filter((e) => verifiedEmail(e?.email, e?.verified));
  const chosen = verified.find((e) => e.primary === true) ?? verified[0];
  return { subject: String(user.id), email: chosen?.email ?? null, name: user.name || user.login || null };
}

async function oidcProfile(p: OAuthProvider, headers: Record<string, string>): Promise<ProviderProfile> {
  const info = await callProvider(p, 'profile request', p.userInfoUrl, { headers });
  if (typeof info.sub !== 'string' || !info.sub) throw providerError(`${p.name} returned a profile without a subject.`);
  return { subject: info.sub, email: verifiedEmail(info.email, info.email_verified), name: info.name || null };
}

export function fetchProfile(p: OAuthProvider, accessToken: string): Promise<ProviderProfile> {
  const headers = { Authorization: `Bearer ${accessToken}`, Accept: 'application/json', 'User-Agent': USER_AGENT };
  return p.profile === 'github' ? githubProfile(p, headers) : oidcProfile(p, headers);
}
