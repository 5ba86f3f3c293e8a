import {
  CursorExpired, RateLimited, SourceRefused, SourceUnavailable, type SourceInput, type SourceKind, type SourcePage, type SourceRow,
} from '../sources/public.ts';
import { GitHubClient, GitHubUnreachable, messageOf, originOf, UnusableToken, withoutToken, type GitHubAnswer } from './github-client.ts';
import { isInstant, isPageCursor, later, readCursor } from './issues-cursor.ts';
import { isIssue, isPullRequest, issueKey, issueProperties, issueRow } from './issue-rows.ts';
import { DEFAULT_API_URL, GITHUB_ISSUES_KIND, IssuesConfig } from './schemas.ts';

export interface GithubIssuesKindOptions {
  /** Root of the REST API (default `https://api.github.com`). */
  apiUrl?: string;
  /** How long one page may take, its answer read (default 60 s). */
  timeoutMs?: number;
  /** The most of one page's answer read (default 32 MiB: 100 issues with bodies at GitHub's 65,536-character limit). */
  maxBytes?: number;
  /** The clock rate limits are measured against (epoch milliseconds); tests give their own. */
  now?: () => number;
}

type Input = SourceInput<IssuesConfig>;

const PER_PAGE = 100;
const REDIRECTS = new Set([301, 302, 307, 308]);
const MAX_REDIRECTS = 3;
const CHECK_TIMEOUT_MS = 15_000;
const CHECK_MAX_BYTES = 1024 * 1024;
/** What GitHub's docs say to wait when a rate limit names no time. */
const DEFAULT_WAIT_S = 60;

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), at least 1; null when unreadable. */
function retryAfterSeconds(value: string, now: number): number | null {
  const text = value.trim();
  if (/^[0-9]+$/.test(text)) return Math.max(1, Number(text));
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(1, Math.ceil((at - now) / 1000));
}

/**
 * GitHub's rate limits (https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api): a 429, or a 403
 * with `x-ratelimit-remaining: 0` (the primary limit, until `x-ratelimit-reset`, in epoch seconds), or with
 * `retry-after` or a "secondary rate limit" message (the secondary one). Null for any other answer.
 */
export function rateLimitOf(answer: GitHubAnswer, now: number): RateLimited | null {
  if (answer.status !== 429 && answer.status !== 403) return null;
  const retryAfter = answer.headers.get('retry-after');
  const remaining = answer.headers.get('x-ratelimit-remaining')?.trim();
  const reset = answer.headers.get('x-ratelimit-reset')?.trim();
  const secondary = /secondary rate limit|abuse detection/i.test(messageOf(answer.body) ?? '');
  const exhausted = remaining === '0';
  if (answer.status === 403 && !retryAfter && !exhausted && !secondary) return null;
  let seconds = retryAfter ? retryAfterSeconds(retryAfter, now) : null;
  if (seconds === null && exhausted && reset && /^[0-9]+$/.test(reset)) seconds = Math.max(1, Math.ceil(Number(reset) - now / 1000));
  seconds ??= DEFAULT_WAIT_S;
  const what = exhausted && !retryAfter ? "The GitHub token's rate limit is used up" : `GitHub asked to slow down (HTTP ${answer.status})`;
  return new RateLimited(seconds, `${what}: the read goes on in ${seconds} s.`);
}

/** The URL of the page after this one, from a `Link` header (`<url>; rel="next", <url>; rel="last"`); null on the last page. */
export function nextLink(header: string | null, base: string): string | null {
  if (!header) return null;
  for (const match of header.matchAll(/<([^>]*)>((?:\s*;\s*[^;,<]*)*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^;,\s]*))/i.exec(match[2]);
    const rels = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (!rels.includes('next')) continue;
    try {
      return new URL(match[1], base).href;
    } catch {
      throw new SourceUnavailable("GitHub's Link header names a next page that is not a URL.");
    }
  }
  return null;
}

/** The repository's owner and name, as the config's pattern let them through (checked again: they go into a path). */
function repositoryOf(config: IssuesConfig): { owner: string; name: string; full: string } {
  const [owner, name, ...rest] = config.repository.split('/');
  const part = /^[A-Za-z0-9_.-]{1,100}$/;
  if (rest.length > 0 || !part.test(owner ?? '') || !part.test(name ?? '') || /^\.\.?$/.test(owner) || /^\.\.?$/.test(name))
    throw new SourceRefused('/config/repository', 'The repository must be owner/name (letters, digits, _ . - only).');
  return { owner, name, full: `${owner}/${name}` };
}

function tokenOf(credentials: Record<string, string> | null): string {
  const token = credentials?.token;
  if (typeof token !== 'string' || !token.trim()) throw new SourceUnavailable("The source's GitHub connection has no token: reconnect it.");
  return token;
}

/** GitHub's own sentence after the status, when it gave one. */
function said(answer: GitHubAnswer): string {
  const message = messageOf(answer.body);
  return message ? `: ${message}` : '';
}

/** The answers every call fails alike on: the token refused, or anything else that is not a success. */
function refusal(answer: GitHubAnswer, full: string, token: string): SourceUnavailable {
  const text = (() => {
    if (answer.status === 401) return `GitHub refused the connection's token (HTTP 401${said(answer)}): it is wrong, expired or revoked; reconnect with a valid one.`;
    if (answer.status === 403) return `GitHub refused the connection's token access to ${full} (HTTP 403${said(answer)}).`;
    if (answer.status === 404) return `GitHub has no repository ${full} that the connection's token can see (HTTP 404).`;
    if (answer.status === 410) return `GitHub lists no issues of ${full} (HTTP 410${said(answer)}): issues are turned off in it.`;
    return `GitHub answered HTTP ${answer.status}${said(answer)} for ${full}.`;
  })();
  return new SourceUnavailable(withoutToken(text, token));
}

/**
 * The `github.issues` source kind: the issues (and, when asked, pull requests) of one repository, through a `github`
 * connection's token. Exported so tests use it without a kernel.
 */
export function githubIssuesKind(options: GithubIssuesKindOptions = {}): SourceKind<IssuesConfig> {
  const pageTimeoutMs = options.timeoutMs ?? 60_000;
  const client = new GitHubClient({ apiUrl: options.apiUrl ?? DEFAULT_API_URL, timeoutMs: pageTimeoutMs });
  const maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  const now = options.now ?? Date.now;

  /**
   * One GET with the token, following redirects within the API root (a renamed repository answers 301), and a rate
   * limit thrown as `RateLimited`. Any other answer is the caller's to read.
   */
  async function get(input: Input, url: string, token: string, limits: { timeoutMs?: number; maxBytes: number } = { maxBytes }): Promise<GitHubAnswer> {
    let target = url;
    for (let hops = 0; ; hops++) {
      let answer: GitHubAnswer;
      try {
        answer = await client.requestUrl(token, 'GET', target, undefined, { signal: input.signal, ...limits });
      } catch (err) {
        if (input.signal.aborted) throw new SourceUnavailable('The read was stopped before GitHub answered.');
        if (err instanceof UnusableToken) throw new SourceUnavailable(withoutToken(`The GitHub connection's token cannot be used: ${err.message}`, token));
        if (err instanceof GitHubUnreachable) throw new SourceUnavailable(withoutToken(err.message, token));
        throw err;
      }
      const limited = rateLimitOf(answer, now());
      if (limited) throw limited;
      if (!REDIRECTS.has(answer.status)) return answer;
      const location = answer.headers.get('location');
      if (!location) throw new SourceUnavailable(`GitHub answered a redirect (HTTP ${answer.status}) without saying where to.`);
      if (hops === MAX_REDIRECTS) throw new SourceUnavailable(`GitHub redirected more than ${MAX_REDIRECTS} times.`);
      let next: string;
      try {
        next = new URL(location, target).href;
      } catch {
        throw new SourceUnavailable('GitHub redirected to something that is not a URL.');
      }
      if (!client.isInApi(next))
        throw new SourceUnavailable(`GitHub redirected to ${originOf(next)}, outside ${client.apiUrl}: not followed (the token is sent to the API root only).`);
      target = next;
    }
  }

  async function check(input: Input): Promise<void> {
    const repo = repositoryOf(input.config);
    const token = tokenOf(input.credentials);
    // Someone waits for this answer (a source being made): a repository is a few kilobytes, and comes quickly.
    const answer = await get(input, `${client.apiUrl}/repos/${repo.owner}/${repo.name}`, token, { timeoutMs: Math.min(CHECK_TIMEOUT_MS, pageTimeoutMs), maxBytes: Math.min(CHECK_MAX_BYTES, maxBytes) });
    if (answer.status === 404)
      throw new SourceRefused('/config/repository', `GitHub has no repository ${repo.full} that the connection's token can see: check its name, and that the token may read it.`);
    if (answer.status !== 200) throw refusal(answer, repo.full, token);
    const found = answer.body as { full_name?: unknown; has_issues?: unknown } | undefined;
    if (!found || typeof found !== 'object' || typeof found.full_name !== 'string')
      throw new SourceUnavailable(`${client.apiUrl}/repos/${repo.full} answered without a repository: check that apiUrl is the root of GitHub's REST API.`);
    if (found.has_issues === false) throw new SourceRefused('/config/repository', `Issues are turned off in ${found.full_name}: GitHub lists none of them.`);
  }

  async function* read(input: Input & { cursor: unknown }): AsyncGenerator<SourcePage> {
    const repo = repositoryOf(input.config);
    const token = tokenOf(input.credentials);
    const state = input.config.state ?? 'all';
    const withPulls = input.config.include_pull_requests ?? false;
    const cursor = readCursor(input.cursor);
    const since = cursor?.since ?? null;
    // A full read lists the issues of the configured state; an incremental one lists every state, so an issue that left
    // it (closed, for a source of open issues) is seen and told as gone.
    const snapshot = since === null;
    let url: string;
    let maxUpdated: string | null;
    let resumed: boolean;
    if (cursor && isPageCursor(cursor)) {
      if (!client.isInApi(cursor.next)) throw new CursorExpired('The saved next page is not under the API root: the read starts again.');
      url = cursor.next;
      maxUpdated = cursor.max_updated;
      resumed = true;
    } else {
      const query = new URLSearchParams({ state: snapshot ? state : 'all', sort: 'updated', direction: 'desc', per_page: String(PER_PAGE) });
      if (since !== null) query.set('since', since);
      url = `${client.apiUrl}/repos/${repo.owner}/${repo.name}/issues?${query}`;
      maxUpdated = null;
      resumed = false;
    }
    const followed = new Set<string>();
    for (let first = true; ; first = false) {
      followed.add(url);
      const answer = await get(input, url, token);
      if (answer.status !== 200) {
        // A saved cursor GitHub no longer takes: a next page it no longer serves (422, 404), a `since` it refuses (422).
        if (first && ((resumed && (answer.status === 422 || answer.status === 404)) || (since !== null && answer.status === 422)))
          throw new CursorExpired(`GitHub no longer serves the page the read stopped at (HTTP ${answer.status}): it starts again.`);
        throw refusal(answer, repo.full, token);
      }
      if (!Array.isArray(answer.body)) throw new SourceUnavailable(`GitHub's answer for the issues of ${repo.full} is not a list: check that apiUrl is the root of GitHub's REST API.`);
      const rows: SourceRow[] = [];
      for (const item of answer.body) {
        if (!isIssue(item)) throw new SourceUnavailable(`GitHub's answer for the issues of ${repo.full} holds something that is not an issue.`);
        if (isInstant(item.updated_at)) maxUpdated = later(maxUpdated, item.updated_at);
        if (isPullRequest(item) && !withPulls) continue;
        if (!snapshot && state !== 'all' && item.state !== state) rows.push({ key: issueKey(item), values: {}, deleted: true });
        else rows.push(issueRow(item));
      }
      const next = nextLink(answer.headers.get('link'), url);
      if (next === null) {
        const until = later(since, maxUpdated);
        yield { rows, cursor: until === null ? null : { since: until }, snapshot };
        return;
      }
      if (!client.isInApi(next))
        throw new SourceUnavailable(`GitHub's Link header names a next page at ${originOf(next)}, outside ${client.apiUrl}: not followed (the token is sent to the API root only).`);
      if (followed.has(next)) throw new SourceUnavailable("GitHub's Link header names a page this read has already listed: the listing does not end.");
      yield { rows, cursor: { since, next, max_updated: maxUpdated }, snapshot };
      url = next;
    }
  }

  return {
    id: GITHUB_ISSUES_KIND,
    name: 'GitHub issues',
    provider: 'github',
    configSchema: IssuesConfig,
    check,
    properties: async () => issueProperties(),
    read,
  };
}
