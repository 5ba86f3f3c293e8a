import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on loopback that speaks the parts of GitHub's REST API a `github.issues` source uses, as GitHub
 * does: `GET /user`, `GET /repos/{owner}/{repo}`, and `GET /repos/{owner}/{repo}/issues` with `state`, `sort=updated`,
 * `direction`, `since` (inclusive) and `per_page`, paged by `page` with a `Link` header whose next and last pages are
 * absolute URLs under `/repositories/{id}/issues` (GitHub's own form). Pull requests are listed with the issues, with a
 * `pull_request` member.
 */

export const REPO_ID = 1296269;

export interface FakeIssue {
  id: number;
  number: number;
  title: string;
  state: 'open' | 'closed';
  body: string | null;
  user: { login: string; id: number } | null;
  assignees: Array<{ login: string; id: number }>;
  labels: Array<{ id: number; name: string; color: string } | string>;
  html_url: string;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  comments: number;
  pull_request?: { url: string; html_url: string };
  [more: string]: unknown;
}

export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

/** Answers a request itself (true) or leaves it to the server's GitHub (false). */
export type Override = (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => boolean;

export interface FakeGithub {
  origin: string;
  /** What apiUrl is set to (the origin, plus `prefix`). */
  apiUrl: string;
  token: string;
  owner: string;
  repo: string;
  issues: FakeIssue[];
  seen: Seen[];
  /** Repository fields beyond the defaults (`has_issues: false`), or null for a repository that does not exist. */
  repository: Record<string, unknown> | null;
  /** Where `Link` URLs point (default: this server); a test sets another origin to see it refused. */
  linkOrigin: string;
  override: Override | null;
  close(): Promise<void>;
}

const minutes = (base: string, n: number) => new Date(Date.parse(base) + n * 60_000).toISOString().replace('.000Z', 'Z');

/** `count` items numbered 1..count, updated a minute apart from 2024-01-01; every `pullEvery`th is a pull request. */
export function makeIssues(count: number, { pullEvery = 25, owner = 'octo-org', repo = 'hello-world' } = {}): FakeIssue[] {
  return Array.from({ length: count }, (_, i) => {
    const n = i + 1;
    const closed = n % 3 === 0;
    const pull = pullEvery > 0 && n % pullEvery === 0;
    const issue: FakeIssue = {
      url: `https://api.github.com/repos/${owner}/${repo}/issues/${n}`,
      id: 1_000_000 + n,
      node_id: `I_kwDOABCD${n}`,
      number: n,
      title: `Issue number ${n}`,
      state: closed ? 'closed' : 'open',
      body: n % 5 === 0 ? null : `Body of ${n}\n\nwith **markdown**`,
      user: { login: n % 2 ? 'octocat' : 'hubot', id: n % 2 ? 1 : 2 },
      assignees: n % 4 === 0 ? [{ login: 'octocat', id: 1 }, { login: 'monalisa', id: 3 }] : [],
      labels: n % 6 === 0 ? [{ id: 1, name: 'bug', color: 'd73a4a' }, { id: 2, name: 'good first issue', color: '7057ff' }] : [],
      html_url: `https://github.com/${owner}/${repo}/${pull ? 'pull' : 'issues'}/${n}`,
      created_at: minutes('2023-06-01T00:00:00Z', n),
      updated_at: minutes('2024-01-01T00:00:00Z', n),
      closed_at: closed ? minutes('2024-01-01T00:00:00Z', n) : null,
      comments: n % 7,
      reactions: { total_count: 0 },
    };
    if (pull) issue.pull_request = { url: `https://api.github.com/repos/${owner}/${repo}/pulls/${n}`, html_url: issue.html_url };
    return issue;
  });
}

export async function startFakeGithub(opts: { token?: string; owner?: string; repo?: string; issues?: FakeIssue[]; prefix?: string } = {}): Promise<FakeGithub> {
  const prefix = opts.prefix ?? '';
  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4999', ...headers });
    res.end(JSON.stringify(body));
  };

  function listIssues(res: http.ServerResponse, url: URL): void {
    const state = url.searchParams.get('state') ?? 'open';
    const direction = url.searchParams.get('direction') ?? 'desc';
    const since = url.searchParams.get('since');
    const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30));
    const page = Number(url.searchParams.get('page') ?? 1);
    if (url.searchParams.get('sort') !== 'updated') return json(res, 422, { message: 'this fake sorts by updated only' });
    if (since !== null && Number.isNaN(Date.parse(since))) return json(res, 422, { message: 'Validation Failed' });
    const listed = gh.issues
      .filter((i) => state === 'all' || i.state === state)
      .filter((i) => since === null || Date.parse(i.updated_at) >= Date.parse(since))
      .sort((a, b) => (Date.parse(a.updated_at) - Date.parse(b.updated_at) || a.id - b.id) * (direction === 'asc' ? 1 : -1));
    const last = Math.max(1, Math.ceil(listed.length / perPage));
    const pageUrl = (n: number) => {
      const q = new URLSearchParams(url.searchParams);
      q.set('page', String(n));
      return `${gh.linkOrigin}${prefix}/repositories/${REPO_ID}/issues?${q}`;
    };
    const links = [];
    if (page < last) links.push(`<${pageUrl(page + 1)}>; rel="next"`, `<${pageUrl(last)}>; rel="last"`);
    if (page > 1) links.push(`<${pageUrl(1)}>; rel="first"`, `<${pageUrl(page - 1)}>; rel="prev"`);
    json(res, 200, listed.slice((page - 1) * perPage, page * perPage), links.length ? { link: links.join(', ') } : {});
  }

  const server = http.createServer((req, res) => {
    gh.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const url = new URL(req.url ?? '/', gh.origin);
    if (gh.override?.(req, res, url)) return;
    if (req.headers.authorization !== `Bearer ${gh.token}`) return json(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });
    const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : '';
    if (req.method === 'GET' && path === '/user') return json(res, 200, { login: 'octocat', id: 1 });
    const repoPath = `/repos/${gh.owner}/${gh.repo}`;
    if (req.method === 'GET' && path === repoPath) {
      if (!gh.repository) return json(res, 404, { message: 'Not Found' });
      return json(res, 200, { id: REPO_ID, name: gh.repo, full_name: `${gh.owner}/${gh.repo}`, private: false, has_issues: true, ...gh.repository });
    }
    if (req.method === 'GET' && (path === `${repoPath}/issues` || path === `/repositories/${REPO_ID}/issues`) && gh.repository) return listIssues(res, url);
    json(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const owner = opts.owner ?? 'octo-org';
  const repo = opts.repo ?? 'hello-world';
  const gh: FakeGithub = {
    origin,
    apiUrl: `${origin}${prefix}`,
    token: opts.token ?? 'ghp_IssuesTokenValue0123456789abcdefABCD',
    owner,
    repo,
    issues: opts.issues ?? makeIssues(250, { owner, repo }),
    seen: [],
    repository: {},
    linkOrigin: origin,
    override: null,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return gh;
}
