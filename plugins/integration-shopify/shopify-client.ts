/**
 * A small client of Shopify's Admin REST API (https://shopify.dev/docs/api/admin-rest): one shop per call, the access
 * token in `X-Shopify-Access-Token`, a timeout, answers read as JSON, and failures that never carry the token.
 *
 * Which host a call goes to is the one thing a connection could steer, so it is fixed here: `https://{shop}` where the
 * shop is a `name.myshopify.com` domain (nothing else is accepted), or the configured `apiUrl` for every shop.
 */

import { DEFAULT_API_VERSION } from './schemas.ts';
import { AnswerTooLarge, describeFailure, readCapped, redact } from '../integrations/public.ts';

const TIMEOUT_MS = 10_000;
/** Shopify's answers to what we ask are a few kilobytes; more is not read. */
const MAX_ANSWER_BYTES = 1024 * 1024;
const USER_AGENT = 'Tessera';

/** What a shop's domain must be when the client picks the host from it. */
export const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

export interface ShopifyClientOptions {
  /** A root that replaces `https://{shop}` for every shop (a proxy, a test server); unset: the shop's own domain. */
  apiUrl?: string;
  /** `2025-07`, …: the version in `/admin/api/{version}/`. */
  apiVersion?: string;
  timeoutMs?: number;
}

export interface ShopifyAnswer {
  status: number;
  /** The answer parsed as JSON; undefined when it was empty or not JSON. */
  body: unknown;
  /** The address asked (never carries a credential): for sentences naming what answered. */
  url: string;
}

/** Shopify did not answer: no connection, a network error, or no answer within the timeout. Names no token. */
export class ShopifyUnreachable extends Error {}

/** Credentials that cannot be used as they are: an empty token, a token no header carries, a shop that is no shop. */
export class UnusableCredentials extends Error {}

/**
 * Shopify's own sentence in an error answer: `{ errors: '[API] Invalid API key or access token …' }`, or the
 * field-by-field kind (`{ errors: { title: ["can't be blank"] } }`), if it gave one.
 */
export function errorsOf(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const errors = (body as { errors?: unknown; error?: unknown }).errors ?? (body as { error?: unknown }).error;
  const flat = (value: unknown): string[] => {
    if (typeof value === 'string') return value.trim() ? [value.trim()] : [];
    if (Array.isArray(value)) return value.flatMap(flat);
    if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, v]) => flat(v).map((text) => `${key}: ${text}`));
    return [];
  };
  const said = flat(errors).join('; ');
  return said ? said.slice(0, 500) : null;
}

/** Removes the token from a text shown to people, wherever it may have crept in (an error repeating a header). */
export function withoutToken(text: string, token: string): string {
  return redact(text, [token], '[token]');
}

/**
 * The shop's domain as people type it (`Name.myshopify.com`, `https://name.myshopify.com/`), in the form the checks
 * and URLs use: trimmed, lower case, without a leading `https://` or a trailing slash. Nothing else is rewritten.
 */
export function normalizeShop(shop: string): string {
  return shop.trim().toLowerCase().replace(/^https:\/\//, '').replace(/\/$/, '');
}

export class ShopifyClient {
  readonly apiUrl: string | null;
  readonly apiVersion: string;
  private readonly timeoutMs: number;

  constructor(options: ShopifyClientOptions = {}) {
    if (options.apiUrl !== undefined) {
      const url = new URL(options.apiUrl);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`Shopify's apiUrl must be an http(s) URL, not ${options.apiUrl}`);
      this.apiUrl = options.apiUrl.replace(/\/+$/, '');
    } else {
      this.apiUrl = null;
    }
    this.apiVersion = options.apiVersion ?? DEFAULT_API_VERSION;
    if (!/^([0-9]{4}-(01|04|07|10)|unstable)$/.test(this.apiVersion)) throw new Error(`Shopify's apiVersion must be YYYY-01/04/07/10 or unstable, not ${this.apiVersion}`);
    this.timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  }

  /**
   * The root a shop's calls go to: the configured `apiUrl`, or `https://{shop}` for a `name.myshopify.com` shop.
   * Throws `UnusableCredentials` for anything else, so a connection cannot point our requests at a host of its choosing.
   */
  baseFor(shop: string): string {
    const domain = normalizeShop(shop);
    if (!domain) throw new UnusableCredentials('The shop domain is empty.');
    if (this.apiUrl) return this.apiUrl;
    if (!SHOP_DOMAIN.test(domain))
      throw new UnusableCredentials('The shop domain must be the shop\'s name.myshopify.com domain (letters, digits and hyphens, then .myshopify.com), not a custom domain or a URL.');
    return `https://${domain}`;
  }

  /**
   * Sends one request to `{base}/admin/api/{version}/{path}` with the token and answers with whatever status Shopify
   * gave. Throws `UnusableCredentials` before sending anything it should not send, `ShopifyUnreachable` when no answer
   * came. Redirects are not followed: the token goes to the shop (or apiUrl) and nowhere else.
   */
  async request(shop: string, token: string, method: string, path: string, body?: unknown): Promise<ShopifyAnswer> {
    const base = this.baseFor(shop);
    const accessToken = token.trim();
    if (!accessToken) throw new UnusableCredentials('The access token is empty.');
    // Checked here so that fetch never rejects a header with an error message that repeats its value.
    if (!/^[\x21-\x7e]+$/.test(accessToken)) throw new UnusableCredentials('The access token has characters no Shopify token has (spaces, line breaks or non-ASCII characters).');
    const headers: Record<string, string> = {
      'X-Shopify-Access-Token': accessToken,
      Accept: 'application/json',
      'User-Agent': USER_AGENT,
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const url = `${base}/admin/api/${this.apiVersion}/${path.replace(/^\/+/, '')}`;
    try {
      const res = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const text = await readCapped(res, MAX_ANSWER_BYTES, `Shopify's answer was larger than ${MAX_ANSWER_BYTES} bytes and was not read.`);
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed, url };
    } catch (err) {
      if (err instanceof AnswerTooLarge) throw new ShopifyUnreachable(err.message);
      throw new ShopifyUnreachable(withoutToken(`Shopify could not be reached: ${describeFailure(err, this.timeoutMs)}`, accessToken));
    }
  }
}
