import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { compile } from '../../../core/schema.ts';
import { githubIssuesKind, nextLink } from '../../../plugins/integration-github/issues-kind.ts';
import { githubProvider } from '../../../plugins/integration-github/provider.ts';
import type { IssuesConfig } from '../../../plugins/integration-github/schemas.ts';
import {
  CursorExpired, RateLimited, SourceRefused, SourceUnavailable, type SourceInput, type SourceKind, type SourcePage,
} from '../../../plugins/sources/public.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';
import { makeIssues, REPO_ID, startFakeGithub, type FakeGithub } from './issues-server.ts';
import { assertCellsAccepted } from '../sources/cells-accepted.ts';

type ReadInput = SourceInput<IssuesConfig> & { cursor: unknown };

const NOW = Date.parse('2025-03-05T12:00:00Z');

function input(gh: FakeGithub, more: Partial<Omit<ReadInput, 'config'>> & { config?: Partial<IssuesConfig> } = {}): ReadInput {
  const { config, ...rest } = more;
  return {
    config: { repository: `${gh.owner}/${gh.repo}`, ...config },
    credentials: { token: gh.token },
    signal: new AbortController().signal,
    allowPrivateNetworks: false,
    now: new Date(NOW),
    cursor: null,
    ...rest,
  };
}

async function readPages(kind: SourceKind<IssuesConfig>, given: ReadInput): Promise<SourcePage[]> {
  const pages: SourcePage[] = [];
  for await (const page of kind.read(given)) pages.push(page);
  return pages;
}

/** What a call threw: the test fails if it threw nothing, or not an instance of `type`. */
async function thrown<T>(call: () => Promise<unknown>, type: new (...args: any[]) => T): Promise<T> {
  try {
    await call();
  } catch (err) {
    assert.ok(err instanceof type, `expected ${type.name}, got ${err instanceof Error ? `${err.constructor.name}: ${err.message}` : String(err)}`);
    return err;
  }
  assert.fail(`expected ${type.name}, the call succeeded`);
}


const issueRequests = (gh: FakeGithub) => gh.seen.filter((s) => s.url.includes('/issues'));

describe('integration-github: the github.issues source kind', () => {
  storageIndependent();
  let gh: FakeGithub;
  let kind: SourceKind<IssuesConfig>;
  beforeEach(async () => {
    gh = await startFakeGithub();
    kind = githubIssuesKind({ apiUrl: gh.apiUrl, now: () => NOW });
  });
  afterEach(async () => {
    await gh.close();
  });

  it('is offered by the github provider, reads through a github connection, and declares its properties', async () => {
    assert.deepEqual(githubProvider().sources, ['github.issues']);
    assert.equal(kind.id, 'github.issues');
    assert.equal(kind.provider, 'github');
    const properties = await kind.properties(input(gh));
    assert.deepEqual(properties.map((p) => [p.key, p.type]), [
      ['id', 'text'], ['number', 'number'], ['title', 'text'], ['state', 'single_select'], ['body', 'long_text'], ['author', 'text'],
      ['assignees', 'text'], ['labels', 'text'], ['url', 'url'], ['github_created_at', 'datetime'], ['github_updated_at', 'datetime'], ['github_closed_at', 'datetime'],
      ['comments', 'number'], ['is_pull_request', 'checkbox'],
    ]);
    assert.deepEqual(properties.filter((p) => p.unique).map((p) => p.key), ['id']);
    assert.deepEqual(properties.find((p) => p.key === 'number')!.options, { precision: 0 });
    assert.deepEqual(properties.find((p) => p.key === 'comments')!.options, { precision: 0 });
    const state = properties.find((p) => p.key === 'state')!;
    assert.deepEqual((state.options as { choices: Array<{ label: string }> }).choices.map((c) => c.label), ['open', 'closed']);
    assert.deepEqual(gh.seen, [], 'properties ask GitHub nothing');
  });

  it('takes a config of owner/name, defaults state to all and pull requests to left out; refuses names that could change the path', () => {
    const validate = compile(kind.configSchema);
    const config: Record<string, unknown> = { repository: 'octo-org/hello-world' };
    assert.equal(validate(config), true);
    assert.deepEqual(config, { repository: 'octo-org/hello-world', state: 'all', include_pull_requests: false });
    for (const good of ['a/b', 'Octo_Org/.github', 'o/repo.js', 'o/..x', 'o/x..', 'o/.x']) assert.equal(validate({ repository: good }), true, good);
    for (const bad of ['octocat', 'a/b/c', '../b', './b', 'a/..', 'a/.', 'a/b?x=1', 'a/b#c', 'a /b', '/b', 'a/', `a/${'x'.repeat(101)}`, 'a/b%2F..'])
      assert.equal(validate({ repository: bad }), false, bad);
    assert.equal(validate({ repository: 'a/b', state: 'merged' }), false);
    assert.equal(validate({ repository: 'a/b', token: 'x' }), false, 'no secret in a config');
  });

  it('lists every issue once over three pages by following Link, snapshot true, with a cursor after each page', async () => {
    const pages = await readPages(kind, input(gh));
    assert.equal(pages.length, 3);
    assert.ok(pages.every((p) => p.snapshot === true));
    const rows = pages.flatMap((p) => p.rows);
    const issues = gh.issues.filter((i) => !i.pull_request);
    assert.equal(rows.length, issues.length);
    assert.deepEqual(new Set(rows.map((r) => r.key)), new Set(issues.map((i) => String(i.id))));
    assert.equal(new Set(rows.map((r) => r.key)).size, rows.length, 'each issue once');

    // The requests: the first under the repository, the next ones where GitHub's Link pointed (/repositories/{id}).
    const asked = issueRequests(gh);
    assert.equal(asked.length, 3);
    const first = new URL(asked[0].url, gh.origin);
    assert.equal(first.pathname, `/repos/${gh.owner}/${gh.repo}/issues`);
    assert.deepEqual(Object.fromEntries(first.searchParams), { state: 'all', sort: 'updated', direction: 'desc', per_page: '100' });
    assert.equal(new URL(asked[1].url, gh.origin).pathname, `/repositories/${REPO_ID}/issues`);
    assert.equal(new URL(asked[2].url, gh.origin).searchParams.get('page'), '3');
    for (const request of asked) {
      assert.equal(request.headers.authorization, `Bearer ${gh.token}`);
      assert.equal(request.headers.accept, 'application/vnd.github+json');
      assert.equal(request.headers['x-github-api-version'], '2022-11-28');
    }

    const newest = '2024-01-01T04:10:00Z'; // issue 250, updated last
    assert.deepEqual(pages[0].cursor, { since: null, next: `${gh.origin}/repositories/${REPO_ID}/issues?state=all&sort=updated&direction=desc&per_page=100&page=2`, max_updated: newest });
    assert.deepEqual(pages[1].cursor, { since: null, next: `${gh.origin}/repositories/${REPO_ID}/issues?state=all&sort=updated&direction=desc&per_page=100&page=3`, max_updated: newest });
    assert.deepEqual(pages[2].cursor, { since: newest });
    assertCellsAccepted(await kind.properties(input(gh)), rows);
  });

  it('gives each issue its values as the field types take them', async () => {
    const big = 'é'.repeat(99_999) + '😀😀';
    gh.issues = [
      ...makeIssues(12),
      {
        ...makeIssues(13)[12],
        id: 2_000_000,
        number: 4242,
        title: 'Crash on\u0000 start',
        body: big,
        user: null,
        labels: ['legacy-label', { id: 9, name: 'P1', color: 'ff0000' }],
        html_url: 'not a url',
        comments: 3,
      },
    ];
    const rows = (await readPages(kind, input(gh))).flatMap((p) => p.rows);
    const byKey = Object.fromEntries(rows.map((r) => [r.key, r.values]));
    assert.deepEqual(byKey['1000012'], {
      id: '1000012',
      number: 12,
      title: 'Issue number 12',
      state: 'closed',
      body: 'Body of 12\n\nwith **markdown**',
      author: 'hubot',
      assignees: 'octocat, monalisa',
      labels: 'bug, good first issue',
      url: 'https://github.com/octo-org/hello-world/issues/12',
      github_created_at: '2023-06-01T00:12:00.000Z',
      github_updated_at: '2024-01-01T00:12:00.000Z',
      github_closed_at: '2024-01-01T00:12:00.000Z',
      comments: 5,
      is_pull_request: false,
    });
    assert.deepEqual([byKey['1000011'].state, byKey['1000011'].github_closed_at, byKey['1000011'].assignees, byKey['1000011'].labels], ['open', null, null, null]);
    assert.equal(byKey['1000010'].body, null);
    const odd = byKey['2000000'];
    assert.equal(odd.title, 'Crash on start');
    assert.equal(odd.author, null);
    assert.equal(odd.labels, 'legacy-label, P1');
    assert.equal(odd.url, null);
    assert.equal(Array.from(odd.body as string).length, 100_000, 'cut at 100,000 characters (code points)');
    assert.ok((odd.body as string).endsWith('é😀'));
    assertCellsAccepted(await kind.properties(input(gh)), rows);
  });

  it('leaves pull requests out by default, and lists them with include_pull_requests', async () => {
    const without = (await readPages(kind, input(gh))).flatMap((p) => p.rows);
    assert.equal(without.length, 240);
    assert.ok(without.every((r) => r.values.is_pull_request === false));
    const withPulls = (await readPages(kind, input(gh, { config: { include_pull_requests: true } }))).flatMap((p) => p.rows);
    assert.equal(withPulls.length, 250);
    const pull = withPulls.find((r) => r.values.number === 25)!;
    assert.equal(pull.values.is_pull_request, true);
    assert.equal(pull.values.url, 'https://github.com/octo-org/hello-world/pull/25');
  });

  it('goes on from a middle page\'s cursor with exactly the rest, still a snapshot', async () => {
    const pages = await readPages(kind, input(gh));
    gh.seen.length = 0;
    const rest = await readPages(kind, input(gh, { cursor: JSON.parse(JSON.stringify(pages[0].cursor)) }));
    assert.deepEqual(rest.map((p) => p.rows), [pages[1].rows, pages[2].rows]);
    assert.ok(rest.every((p) => p.snapshot === true));
    assert.deepEqual(rest.at(-1)!.cursor, pages[2].cursor);
    assert.deepEqual(issueRequests(gh).map((s) => new URL(s.url, gh.origin).searchParams.get('page')), ['2', '3']);
  });

  it('reads only the issues updated since the cursor (since is inclusive), snapshot false, and moves the cursor on', async () => {
    const since = '2024-01-01T03:20:00Z'; // issue 200
    const pages = await readPages(kind, input(gh, { cursor: { since } }));
    assert.equal(pages.length, 1);
    assert.equal(pages[0].snapshot, false);
    const expected = gh.issues.filter((i) => i.number >= 200 && !i.pull_request).map((i) => String(i.id));
    assert.deepEqual(new Set(pages[0].rows.map((r) => r.key)), new Set(expected));
    assert.deepEqual(pages[0].cursor, { since: '2024-01-01T04:10:00Z' });
    const asked = new URL(issueRequests(gh)[0].url, gh.origin);
    assert.deepEqual(Object.fromEntries(asked.searchParams), { state: 'all', sort: 'updated', direction: 'desc', per_page: '100', since });

    // Nothing updated since: one empty page, the cursor as it was.
    const quiet = await readPages(kind, input(gh, { cursor: { since: '2025-01-01T00:00:00Z' } }));
    assert.deepEqual(quiet, [{ rows: [], cursor: { since: '2025-01-01T00:00:00Z' }, snapshot: false }]);
  });

  it('pages an incremental read too, each page\'s cursor keeping its since', async () => {
    const since = '2024-01-01T00:30:00Z';
    const pages = await readPages(kind, input(gh, { cursor: { since } }));
    assert.equal(pages.length, 3);
    assert.ok(pages.every((p) => p.snapshot === false));
    assert.deepEqual(pages[0].cursor, { since, next: `${gh.origin}/repositories/${REPO_ID}/issues?state=all&sort=updated&direction=desc&per_page=100&since=${encodeURIComponent(since)}&page=2`, max_updated: '2024-01-01T04:10:00Z' });
    const resumed = await readPages(kind, input(gh, { cursor: pages[1].cursor }));
    assert.deepEqual(resumed.map((p) => [p.rows, p.cursor, p.snapshot]), [[pages[2].rows, { since: '2024-01-01T04:10:00Z' }, false]]);
  });

  it('a source of open issues lists open ones in full, and tells an issue closed since as gone when reading incrementally', async () => {
    const full = await readPages(kind, input(gh, { config: { state: 'open' } }));
    assert.equal(new URL(issueRequests(gh)[0].url, gh.origin).searchParams.get('state'), 'open');
    const rows = full.flatMap((p) => p.rows);
    assert.ok(rows.length > 0 && rows.every((r) => r.values.state === 'open'));
    assert.equal(rows.length, gh.issues.filter((i) => i.state === 'open' && !i.pull_request).length);

    gh.seen.length = 0;
    const changes = await readPages(kind, input(gh, { config: { state: 'open' }, cursor: { since: '2024-01-01T04:07:00Z' } }));
    assert.equal(new URL(issueRequests(gh)[0].url, gh.origin).searchParams.get('state'), 'all');
    // 247 open, 248 open, 249 closed (gone from a source of open issues), 250 a pull request (left out).
    const told = changes[0].rows.map((r) => [r.key, r.deleted ?? false, r.values.state ?? null]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    assert.deepEqual(told, [['1000247', false, 'open'], ['1000248', false, 'open'], ['1000249', true, null]]);
  });

  it('throws CursorExpired for a saved next page GitHub no longer serves (422 or 404), and for a cursor it did not write', async () => {
    const [firstPage] = await readPages(kind, input(gh));
    const cursor = firstPage.cursor as { next: string };
    for (const status of [422, 404]) {
      gh.override = (_req, res, url) => {
        if (url.searchParams.get('page') !== '2') return false;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: status === 422 ? 'Pagination is limited for this resource' : 'Not Found' }));
        return true;
      };
      await thrown(() => readPages(kind, input(gh, { cursor })), CursorExpired);
    }
    // The same refusal on a page GitHub named during this read is the provider failing, not an old cursor.
    const failed = await thrown(() => readPages(kind, input(gh)), SourceUnavailable);
    assert.match(failed.message, /HTTP 404/);
    gh.override = null;
    for (const odd of ['page 2', 7, [1], { since: 'yesterday' }, { since: null, next: 42 }, { since: null, next: 'https://elsewhere.example/x', max_updated: null }])
      await thrown(() => readPages(kind, input(gh, { cursor: odd })), CursorExpired);
  });

  it('throws RateLimited for a 429 with Retry-After, and for a 403 with x-ratelimit-remaining 0 until x-ratelimit-reset', async () => {
    gh.override = (_req, res) => {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '120' });
      res.end(JSON.stringify({ message: 'Too many requests' }));
      return true;
    };
    assert.equal((await thrown(() => readPages(kind, input(gh)), RateLimited)).seconds, 120);

    const reset = Math.floor(NOW / 1000) + 300;
    gh.override = (_req, res) => {
      res.writeHead(403, { 'content-type': 'application/json', 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) });
      res.end(JSON.stringify({ message: 'API rate limit exceeded for user ID 1.' }));
      return true;
    };
    const primary = await thrown(() => readPages(kind, input(gh)), RateLimited);
    assert.equal(primary.seconds, 300);
    assert.match(primary.message, /rate limit is used up.*300 s/);
    // A reset already past still waits a second.
    const late = githubIssuesKind({ apiUrl: gh.apiUrl, now: () => (reset + 10) * 1000 });
    assert.equal((await thrown(() => readPages(late, input(gh)), RateLimited)).seconds, 1);

    // The secondary limit: a 403 with Retry-After, or with only its message (GitHub says: wait a minute).
    gh.override = (_req, res) => {
      res.writeHead(403, { 'content-type': 'application/json', 'retry-after': '30', 'x-ratelimit-remaining': '4000' });
      res.end(JSON.stringify({ message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' }));
      return true;
    };
    assert.equal((await thrown(() => readPages(kind, input(gh)), RateLimited)).seconds, 30);
    gh.override = (_req, res) => {
      res.writeHead(403, { 'content-type': 'application/json', 'x-ratelimit-remaining': '4000' });
      res.end(JSON.stringify({ message: 'You have exceeded a secondary rate limit.' }));
      return true;
    };
    assert.equal((await thrown(() => readPages(kind, input(gh)), RateLimited)).seconds, 60);
    // check() is rate limited the same way.
    assert.equal((await thrown(() => kind.check!(input(gh)), RateLimited)).seconds, 60);
  });

  it('a rate limit in the middle of a read comes after the pages before it, and the read goes on from their cursor', async () => {
    gh.override = (_req, res, url) => {
      if (url.searchParams.get('page') !== '3') return false;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '5' });
      res.end('{}');
      return true;
    };
    const pages: SourcePage[] = [];
    const err = await thrown(async () => {
      for await (const page of kind.read(input(gh))) pages.push(page);
    }, RateLimited);
    assert.equal(err.seconds, 5);
    assert.equal(pages.length, 2);
    gh.override = null;
    const rest = await readPages(kind, input(gh, { cursor: pages[1].cursor }));
    assert.equal(rest.length, 1);
    assert.equal(new Set([...pages, ...rest].flatMap((p) => p.rows.map((r) => r.key))).size, 240);
    assert.deepEqual(rest[0].cursor, { since: '2024-01-01T04:10:00Z' });
  });

  it('fails with SourceUnavailable for a refused token (401), never with the token, even where GitHub repeats it', async () => {
    gh.override = (_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: `Bad credentials for ${gh.token}` }));
      return true;
    };
    const err = await thrown(() => readPages(kind, input(gh)), SourceUnavailable);
    assert.match(err.message, /refused the connection's token \(HTTP 401: Bad credentials for \[token\]\)/);
    assert.ok(!err.message.includes(gh.token));
    const checked = await thrown(() => kind.check!(input(gh)), SourceUnavailable);
    assert.match(checked.message, /HTTP 401/);
    assert.ok(!checked.message.includes(gh.token));
    gh.override = null;
    // The wrong token, against GitHub's own check.
    const wrong = await thrown(() => readPages(kind, input(gh, { credentials: { token: 'ghp_not_this_one_0123456789' } })), SourceUnavailable);
    assert.match(wrong.message, /HTTP 401: Bad credentials/);
    assert.ok(!wrong.message.includes('ghp_not_this_one_0123456789'));
    // No token at all, or one no header can carry: nothing is sent.
    gh.seen.length = 0;
    await thrown(() => readPages(kind, input(gh, { credentials: null })), SourceUnavailable);
    const broken = await thrown(() => readPages(kind, input(gh, { credentials: { token: `${gh.token}\r\nX-Evil: 1` } })), SourceUnavailable);
    assert.ok(!broken.message.includes(gh.token));
    assert.deepEqual(gh.seen, []);
  });

  it('fails with SourceUnavailable for a 403 without a rate limit, a 5xx, an answer that is not issues, and no answer', async () => {
    const answer = (status: number, body: string) => {
      gh.override = (_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(body);
        return true;
      };
    };
    answer(403, JSON.stringify({ message: 'Resource not accessible by personal access token' }));
    assert.match((await thrown(() => readPages(kind, input(gh)), SourceUnavailable)).message, /HTTP 403: Resource not accessible/);
    answer(502, 'Bad gateway');
    assert.match((await thrown(() => readPages(kind, input(gh)), SourceUnavailable)).message, /HTTP 502/);
    answer(200, JSON.stringify({ message: 'not a list' }));
    assert.match((await thrown(() => readPages(kind, input(gh)), SourceUnavailable)).message, /not a list/);
    answer(200, JSON.stringify([{ title: 'no id' }]));
    assert.match((await thrown(() => readPages(kind, input(gh)), SourceUnavailable)).message, /not an issue/);
    const apiUrl = gh.apiUrl;
    await gh.close();
    const gone = await thrown(() => readPages(githubIssuesKind({ apiUrl }), input(gh)), SourceUnavailable);
    assert.match(gone.message, /^GitHub could not be reached: /);
    gh = await startFakeGithub();
  });

  it('refuses a Link to another origin: the token is not sent there', async () => {
    const elsewhere: string[] = [];
    const other = http.createServer((req, res) => {
      elsewhere.push(String(req.headers.authorization));
      res.end('[]');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      gh.linkOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
      const pages: SourcePage[] = [];
      const err = await thrown(async () => {
        for await (const page of kind.read(input(gh))) pages.push(page);
      }, SourceUnavailable);
      assert.match(err.message, /outside .*not followed/);
      assert.equal(pages.length, 0, 'no page whose cursor would name it');
      assert.deepEqual(elsewhere, []);
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it('keeps to an API root with a path (GitHub Enterprise Server): Links under it are followed, others refused', async () => {
    await gh.close();
    gh = await startFakeGithub({ prefix: '/api/v3' });
    kind = githubIssuesKind({ apiUrl: `${gh.apiUrl}/`, now: () => NOW });
    const pages = await readPages(kind, input(gh));
    assert.equal(pages.flatMap((p) => p.rows).length, 240);
    assert.ok(issueRequests(gh).every((s) => s.url.startsWith('/api/v3/')));
    const outside = await thrown(() => readPages(kind, input(gh, { cursor: { since: null, next: `${gh.origin}/repositories/${REPO_ID}/issues?page=2`, max_updated: null } })), CursorExpired);
    assert.match(outside.message, /not under the API root/);
  });

  it('reads GitHub\'s Link header as RFC 8288 has it', () => {
    const base = 'https://api.github.com/repos/o/r/issues';
    assert.equal(nextLink(null, base), null);
    assert.equal(nextLink('<https://api.github.com/x?page=1>; rel="prev", <https://api.github.com/x?page=1>; rel="first"', base), null);
    assert.equal(
      nextLink('<https://api.github.com/x?labels=a,b&page=3>; rel="next", <https://api.github.com/x?labels=a,b&page=9>; rel="last"', base),
      'https://api.github.com/x?labels=a,b&page=3',
    );
    assert.equal(nextLink('<https://api.github.com/x?page=9>; rel="last", <https://api.github.com/x?page=2>; rel=next', base), 'https://api.github.com/x?page=2');
    assert.equal(nextLink('</repositories/1/issues?page=2>; rel="prev next"', base), 'https://api.github.com/repositories/1/issues?page=2');
  });

  it('stops a read when the run is stopped', async () => {
    const controller = new AbortController();
    gh.override = (_req, _res, url) => url.searchParams.get('page') === '2'; // never answers page 2
    const pages: SourcePage[] = [];
    const reading = thrown(async () => {
      for await (const page of kind.read(input(gh, { signal: controller.signal }))) {
        pages.push(page);
        setTimeout(() => controller.abort(), 50);
      }
    }, SourceUnavailable);
    const err = await reading;
    assert.match(err.message, /stopped/);
    assert.equal(pages.length, 1);
  });

  it('does not read an answer past its cap', async () => {
    const small = githubIssuesKind({ apiUrl: gh.apiUrl, maxBytes: 10_000 });
    assert.match((await thrown(() => readPages(small, input(gh)), SourceUnavailable)).message, /larger than 10000 bytes/);
  });

  describe('check', () => {
    it('passes for a repository the token can see', async () => {
      await kind.check!(input(gh));
      assert.deepEqual(gh.seen.map((s) => [s.method, s.url, s.headers.authorization]), [['GET', `/repos/${gh.owner}/${gh.repo}`, `Bearer ${gh.token}`]]);
    });

    it('refuses a repository GitHub does not show this token (404) at /config/repository', async () => {
      gh.repository = null;
      const err = await thrown(() => kind.check!(input(gh)), SourceRefused);
      assert.equal(err.pointer, '/config/repository');
      assert.match(err.detail, /no repository octo-org\/hello-world that the connection's token can see/);
    });

    it('refuses a repository with issues turned off', async () => {
      gh.repository = { has_issues: false };
      const err = await thrown(() => kind.check!(input(gh)), SourceRefused);
      assert.equal(err.pointer, '/config/repository');
      assert.match(err.detail, /Issues are turned off/);
    });

    it('follows a renamed repository\'s redirect within the API root, and no other', async () => {
      gh.override = (_req, res, url) => {
        if (url.pathname !== '/repos/octo-org/old-name') return false;
        res.writeHead(301, { location: `${gh.origin}/repos/${gh.owner}/${gh.repo}`, 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: 'Moved Permanently' }));
        return true;
      };
      await kind.check!(input(gh, { config: { repository: 'octo-org/old-name' } }));
      assert.deepEqual(gh.seen.map((s) => s.url), ['/repos/octo-org/old-name', `/repos/${gh.owner}/${gh.repo}`]);
      gh.override = (_req, res) => {
        res.writeHead(302, { location: 'https://evil.example/steal' });
        res.end();
        return true;
      };
      assert.match((await thrown(() => kind.check!(input(gh)), SourceUnavailable)).message, /redirected to https:\/\/evil\.example, outside/);
    });

    it('fails with SourceUnavailable for a 403 and for an apiUrl that is not GitHub\'s', async () => {
      gh.override = (_req, res) => {
        res.writeHead(403, { 'content-type': 'application/json', 'x-ratelimit-remaining': '10' });
        res.end(JSON.stringify({ message: 'Must have admin rights to Repository.' }));
        return true;
      };
      assert.match((await thrown(() => kind.check!(input(gh)), SourceUnavailable)).message, /HTTP 403: Must have admin rights/);
      gh.override = (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html></html>');
        return true;
      };
      assert.match((await thrown(() => kind.check!(input(gh)), SourceUnavailable)).message, /without a repository/);
    });
  });
});
