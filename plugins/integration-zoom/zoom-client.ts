/**
 * A small client of Zoom for Server-to-Server OAuth apps: an access token obtained with the account credentials grant
 * (https://developers.zoom.us/docs/internal-apps/s2s-oauth/), then REST calls (https://developers.zoom.us/docs/api/)
 * with it. A timeout, answers read as JSON, and failures that never carry the client secret or a token.
 */

import { DEFAULT_API_URL, DEFAULT_OAUTH_URL } from './schemas.ts';
import { AnswerTooLarge, describeFailure, readCapped, redact } from '../integrations/public.ts';

const TIMEOUT_MS = 10_000;
/** Zoom's answers to what we ask are a few kilobytes; more is not read. */
const MAX_ANSWER_BYTES = 1024 * 1024;
const USER_AGENT = 'Tessera';

export interface ZoomClientOptions {
  /** The REST API's root, e.g. `https://api.zoom.us/v2`. */
  apiUrl?: string;
  /** The OAuth server's root, where `/oauth/token` is, e.g. `https://zoom.us`. */
  oauthUrl?: string;
  timeoutMs?: number;
}

export interface ZoomAnswer {
  status: number;
  /** The answer parsed as JSON; undefined when it was empty or not JSON. */
  body: unknown;
}

/** A Server-to-Server OAuth app's credentials, as a connection holds them. */
export interface AccountCredentials {
  accountId: string;
  clientId: string;
  clientSecret: string;
}

/** Zoom did not answer: no connection, a network error, or no answer within the timeout. Names no secret. */
export class ZoomUnreachable extends Error {}

/** Credentials that cannot be sent as they are (empty, or with characters no header or Zoom credential has). */
export class UnusableCredentials extends Error {}

/** Removes each secret from a text shown to people, wherever it may have crept in (an error repeating a header). */
export function withoutSecrets(text: string, secrets: Array<string | null | undefined>): string {
  return redact(text, secrets, '[secret]');
}

/**
 * Zoom's own sentence in an error answer: the OAuth server's `{ reason, error }` (`Invalid client_id or
 * client_secret`), or the REST API's `{ code, message }` (`Invalid access token.`), if it gave one.
 */
export function reasonOf(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as { reason?: unknown; message?: unknown; error_description?: unknown; error?: unknown };
  for (const value of [b.reason, b.message, b.error_description, b.error]) {
    if (typeof value === 'string' && value.trim()) return value.trim().slice(0, 500);
  }
  return null;
}

function rootOf(value: string, what: string): string {
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`Zoom's ${what} must be an http(s) URL, not ${value}`);
  return value.replace(/\/+$/, '');
}

/** Printable ASCII without spaces: what Zoom's account ids, client ids and secrets are made of. */
const PRINTABLE = /^[\x21-\x7e]+$/;

export class ZoomClient {
  readonly apiUrl: string;
  readonly oauthUrl: string;
  private readonly timeoutMs: number;

  constructor(options: ZoomClientOptions = {}) {
    this.apiUrl = rootOf(options.apiUrl ?? DEFAULT_API_URL, 'apiUrl');
    this.oauthUrl = rootOf(options.oauthUrl ?? DEFAULT_OAUTH_URL, 'oauthUrl');
    this.timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  }

  /**
   * Asks for an access token as Zoom documents it for Server-to-Server OAuth apps:
   * `POST {oauthUrl}/oauth/token?grant_type=account_credentials&account_id=…` with HTTP Basic `client_id:client_secret`.
   * Answers with whatever Zoom said (a token answer is `{ access_token, token_type, expires_in, scope }`, a refusal
   * `{ reason, error }`). Throws `UnusableCredentials` before sending credentials that cannot be sent.
   */
  async accountToken(credentials: AccountCredentials): Promise<ZoomAnswer> {
    const accountId = credentials.accountId.trim();
    const clientId = credentials.clientId.trim();
    const clientSecret = credentials.clientSecret.trim();
    if (!accountId) throw new UnusableCredentials('The account ID is empty.');
    if (!clientId) throw new UnusableCredentials('The client ID is empty.');
    if (!clientSecret) throw new UnusableCredentials('The client secret is empty.');
    if (!PRINTABLE.test(accountId)) throw new UnusableCredentials('The account ID has characters no Zoom account ID has (spaces, line breaks or non-ASCII characters).');
    // HTTP Basic splits at the first colon: a client id with one would send part of itself as the secret.
    if (!PRINTABLE.test(clientId) || clientId.includes(':')) throw new UnusableCredentials('The client ID has characters no Zoom client ID has (colons, spaces, line breaks or non-ASCII characters).');
    if (!PRINTABLE.test(clientSecret)) throw new UnusableCredentials('The client secret has characters no Zoom client secret has (spaces, line breaks or non-ASCII characters).');
    const basic = Buffer.from(`${clientId}:${clientSecret}`, 'utf8').toString('base64');
    const query = new URLSearchParams({ grant_type: 'account_credentials', account_id: accountId });
    return this.send(`${this.oauthUrl}/oauth/token?${query}`, 'POST', { Authorization: `Basic ${basic}` }, undefined, [clientSecret, basic]);
  }

  /**
   * Sends one request to `{apiUrl}{path}` with the access token and answers with whatever status Zoom gave. Throws
   * `ZoomUnreachable` when no answer came. Redirects are not followed: tokens go to the configured roots and nowhere else.
   */
  async request(accessToken: string, method: string, path: string, body?: unknown): Promise<ZoomAnswer> {
    const bearer = accessToken.trim();
    if (!bearer || !PRINTABLE.test(bearer)) throw new UnusableCredentials('Zoom issued an access token no header can carry.');
    const headers: Record<string, string> = { Authorization: `Bearer ${bearer}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return this.send(`${this.apiUrl}/${path.replace(/^\/+/, '')}`, method, headers, body, [bearer]);
  }

  private async send(url: string, method: string, headers: Record<string, string>, body: unknown, secrets: string[]): Promise<ZoomAnswer> {
    try {
      const res = await fetch(url, {
        method,
        headers: { Accept: 'application/json', 'User-Agent': USER_AGENT, ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const text = await readCapped(res, MAX_ANSWER_BYTES, `Zoom's answer was larger than ${MAX_ANSWER_BYTES} bytes and was not read.`);
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed };
    } catch (err) {
      if (err instanceof AnswerTooLarge) throw new ZoomUnreachable(err.message);
      throw new ZoomUnreachable(withoutSecrets(`Zoom could not be reached: ${describeFailure(err, this.timeoutMs)}`, secrets));
    }
  }
}
