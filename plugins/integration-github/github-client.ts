/**
 * A small client of GitHub's REST API (https://docs.github.com/rest): the headers GitHub asks for, a timeout, answers
 * read as JSON, and failures that never carry the token. Connections test their token through it; actions (an issue
 * opened, a comment posted) go through `request` as well.
 */
import { AnswerTooLarge, describeFailure, readCapped, redact } from '../integrations/public.ts';

export const API_VERSION = '2022-11-28';
// GitHub refuses requests without a User-Agent.
const USER_AGENT = 'Tessera';
const TIMEOUT_MS = 10_000;
/** GitHub's answers to what we ask are a few kilobytes; more is not read. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface GitHubClientOptions {
  /** The REST API's root, e.g. `https://api.github.com` or `https://HOST/api/v3`. */
  apiUrl: string;
  timeoutMs?: number;
}

/** What one request may change from the client's defaults. */
export interface RequestOptions {
  /** Aborts the request (a source's run stopping), besides the timeout. */
  signal?: AbortSignal;
  /** How long the request may take, its answer read (default: the client's). */
  timeoutMs?: number;
  /** The most of an answer read (default 1 MiB). */
  maxBytes?: number;
}

export interface GitHubAnswer {
  status: number;
  /** The answer parsed as JSON; undefined when it was empty or not JSON. */
  body: unknown;
  headers: Headers;
}

/** GitHub did not answer: no connection, a network error, or no answer within the timeout. Its message names no token. */
export class GitHubUnreachable extends Error {}

/** A token that cannot be sent as it is (empty, or with characters no header carries). */
export class UnusableToken extends Error {}

/** GitHub's own sentence in an error answer (`{ message: 'Bad credentials', documentation_url }`), if it gave one. */
export function messageOf(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const message = (body as { message?: unknown }).message;
  return typeof message === 'string' && message.trim() ? message.trim().slice(0, 500) : null;
}

/** Removes the token from a text shown to people, wherever it may have crept in (an error repeating a header). */
export function withoutToken(text: string, token: string): string {
  return redact(text, [token], '[token]');
}

/** A URL's origin, for a message (never its path or query); "an address that is not a URL" when it is none. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an address that is not a URL';
  }
}

export class GitHubClient {
  readonly apiUrl: string;
  private readonly timeoutMs: number;

  constructor(options: GitHubClientOptions) {
    const url = new URL(options.apiUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`GitHub's apiUrl must be an http(s) URL, not ${options.apiUrl}`);
    this.apiUrl = options.apiUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  }

  /**
   * Whether `url` is under the API root (same origin, and under the root's path for `https://HOST/api/v3`): the only
   * place the token is sent, so a URL GitHub hands back (a `Link` header's next page) is checked with this first.
   */
  isInApi(url: string): boolean {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return false;
    }
    const root = new URL(this.apiUrl);
    if (target.origin !== root.origin || target.username || target.password) return false;
    const base = root.pathname.replace(/\/+$/, '');
    return base === '' || target.pathname === base || target.pathname.startsWith(`${base}/`);
  }

  /**
   * Sends one request to `{apiUrl}{path}` with the token and answers with whatever status GitHub gave. Throws
   * `UnusableToken` before sending a token that cannot be sent, `GitHubUnreachable` when no answer came.
   * Redirects are not followed: the token goes to the configured API root and nowhere else.
   */
  async request(token: string, method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<GitHubAnswer> {
    return this.requestUrl(token, method, `${this.apiUrl}/${path.replace(/^\/+/, '')}`, body, options);
  }

  /**
   * `request` to a whole URL, which must be under the API root (`isInApi`; anything else throws `GitHubUnreachable`
   * without sending): a next page GitHub named in a `Link` header.
   */
  async requestUrl(token: string, method: string, url: string, body?: unknown, options: RequestOptions = {}): Promise<GitHubAnswer> {
    const bearer = token.trim();
    if (!bearer) throw new UnusableToken('The token is empty.');
    // Checked here so that fetch never rejects a header with an error message that repeats its value.
    if (!/^[\x21-\x7e]+$/.test(bearer)) throw new UnusableToken('The token has characters no GitHub token has (spaces, line breaks or non-ASCII characters).');
    if (!this.isInApi(url)) throw new GitHubUnreachable(`${originOf(url)} is not under ${this.apiUrl}: the token is not sent there.`);
    const headers: Record<string, string> = {
      Authorization: `Bearer ${bearer}`,
      Accept: 'application/vnd.github+json',
      'X-GitHub-Api-Version': API_VERSION,
      'User-Agent': USER_AGENT,
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const maxBytes = options.maxBytes ?? MAX_ANSWER_BYTES;
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const res = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'manual',
        signal: options.signal ? AbortSignal.any([timeout, options.signal]) : timeout,
      });
      const text = await readCapped(res, maxBytes, `GitHub's answer was larger than ${maxBytes} bytes and was not read.`);
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed, headers: res.headers };
    } catch (err) {
      if (err instanceof AnswerTooLarge) throw new GitHubUnreachable(err.message);
      throw new GitHubUnreachable(withoutToken(`GitHub could not be reached: ${describeFailure(err, timeoutMs)}`, bearer));
    }
  }
}
