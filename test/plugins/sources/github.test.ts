import assert from 'node:assert/strict';
import { createWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import { makeIssues, startFakeGithub, type FakeGithub } from '../integration-github/issues-server.ts';
import { recordsOf, syncedRun } from './runs.ts';

/**
 * `github.issues` end to end, through the sources plugin and the records write path: a `github` connection whose token
 * a loopback server speaking GitHub's REST API knows (the plugin's `apiUrl` pointed at it), a source of one repository's
 * issues, a first full sync, incremental ones from GitHub's `since`, and a full one that finds a deleted issue.
 */
describe('sources: github.issues end to end', function () {
  this.timeout(120_000);
  let t: TestKernel;
  let gh: FakeGithub;
  let owner: SignedUpUser;
  let ws: string;
  const api = (path: string) => `/api/v1/workspaces/${ws}${path}`;

  before(async () => {
    gh = await startFakeGithub({ issues: makeIssues(130) });
    t = await startTestKernel({ config: { plugins: { 'integration-github': { options: { apiUrl: gh.apiUrl } } } } });
    owner = await signUp(t);
    ws = (await createWorkspace(t, owner)).id;
    await t.request.post(api('/spaces')).set(owner.auth).send({ name: 'Engineering' }).expect(201);
  });
  after(async () => {
    await t.stop();
    await gh.close();
  });

  const synced = (sourceId: string, body: Record<string, unknown> = {}) => syncedRun(t, owner.auth, ws, sourceId, body);

  const records = (databaseId: string) => recordsOf(t, owner.auth, ws, databaseId);

  const issueAsked = () => gh.seen.filter((s) => s.url.includes('/issues')).map((s) => new URL(s.url, gh.origin));

  it('syncs a repository\'s issues: a full first read, then only what changed since, the user\'s own fields kept; a full read finds a deletion', async () => {
    const listed = (await t.request.get('/api/v1/integrations').set(owner.auth).expect(200)).body.data.find((p: { id: string }) => p.id === 'github');
    assert.ok(listed.capabilities.includes('sources'));

    const connection = await t.request.post(api('/connections')).set(owner.auth).send({ provider: 'github', name: 'GitHub', credentials: { token: gh.token } });
    assert.equal(connection.status, 201, JSON.stringify(connection.body));

    const missing = await t.request.post(api('/sources')).set(owner.auth).send({ kind: 'github.issues', name: 'Nope', connection_id: connection.body.id, config: { repository: 'octo-org/nothing-here' } });
    assert.equal(missing.status, 422);
    assert.equal(missing.body.errors?.[0]?.pointer ?? missing.body.pointer, '/config/repository', JSON.stringify(missing.body));
    const traversal = await t.request.post(api('/sources')).set(owner.auth).send({ kind: 'github.issues', name: 'Nope', connection_id: connection.body.id, config: { repository: 'octo-org/..' } });
    assert.equal(traversal.status, 422);

    const created = await t.request
      .post(api('/sources'))
      .set(owner.auth)
      .send({ kind: 'github.issues', name: 'Hello issues', connection_id: connection.body.id, config: { repository: `${gh.owner}/${gh.repo}` } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const source = created.body;
    assert.deepEqual(source.config, { repository: `${gh.owner}/${gh.repo}`, state: 'all', include_pull_requests: false });

    gh.seen.length = 0;
    const first = await synced(source.id);
    assert.deepEqual([first.status, first.created, first.updated, first.deleted, first.skipped], ['succeeded', 125, 0, 0, 0], JSON.stringify(first));
    assert.deepEqual(issueAsked().map((u) => [u.searchParams.get('page'), u.searchParams.get('since')]), [[null, null], ['2', null]]);

    const database = (await t.request.get(api(`/databases/${source.database_id}`)).set(owner.auth).expect(200)).body;
    const title = database.fields.find((f: { is_title: boolean }) => f.is_title);
    assert.equal(title.api_name, 'title');
    const apiNames = database.fields.map((f: { api_name: string }) => f.api_name);
    for (const key of ['id', 'number', 'state', 'body', 'author', 'assignees', 'labels', 'url', 'github_created_at', 'github_updated_at', 'github_closed_at', 'comments', 'is_pull_request'])
      assert.ok(apiNames.includes(key), `a field ${key}: ${apiNames}`);

    let rows = await records(source.database_id);
    assert.equal(rows.length, 125, 'the 130 items less 5 pull requests');
    const seven = rows.find((r) => r.values.number === 7)!;
    assert.equal(seven.values.title, 'Issue number 7');
    assert.equal(seven.values.state.label, 'open');
    assert.equal(seven.values.author, 'octocat');
    assert.equal(seven.values.url, 'https://github.com/octo-org/hello-world/issues/7');
    assert.equal(new Date(seven.values.github_updated_at).toISOString(), '2024-01-01T00:07:00.000Z');
    assert.equal(seven.values.is_pull_request, false);
    assert.equal(rows.find((r) => r.values.number === 12)!.values.labels, 'bug, good first issue');

    // A field of the team's own beside the synced ones.
    await t.request.post(api(`/databases/${source.database_id}/fields`)).set(owner.auth).send({ name: 'Triage notes', type: 'text' }).expect(201);
    await t.request.patch(api(`/databases/${source.database_id}/records/${seven.id}`)).set(owner.auth).send({ values: { triage_notes: 'Ada looks at it' } }).expect(200);
    const ownWrite = await t.request.patch(api(`/databases/${source.database_id}/records/${seven.id}`)).set(owner.auth).send({ values: { title: 'Mine now' } });
    assert.equal(ownWrite.status, 422, 'a synced field is the source\'s');

    // Issue 7 is closed and renamed on GitHub, and a new one is opened.
    const issue7 = gh.issues.find((i) => i.number === 7)!;
    Object.assign(issue7, { title: 'Crash on start (fixed)', state: 'closed', closed_at: '2024-02-01T10:00:00Z', updated_at: '2024-02-01T10:00:00Z', comments: 4 });
    gh.issues.push({ ...makeIssues(131)[130], title: 'A new one', updated_at: '2024-02-01T11:00:00Z' });
    gh.seen.length = 0;
    const incremental = await synced(source.id);
    assert.deepEqual([incremental.status, incremental.created, incremental.updated, incremental.deleted], ['succeeded', 1, 1, 0], JSON.stringify(incremental));
    const [asked] = issueAsked();
    assert.equal(issueAsked().length, 1);
    assert.equal(asked.searchParams.get('since'), '2024-01-01T02:10:00Z', 'since the newest update the first read listed');

    rows = await records(source.database_id);
    const after = rows.find((r) => r.id === seven.id)!;
    assert.equal(after.values.title, 'Crash on start (fixed)');
    assert.equal(after.values.state.label, 'closed');
    assert.equal(after.values.comments, 4);
    assert.equal(after.values.triage_notes, 'Ada looks at it', "the team's own field is kept");
    assert.ok(rows.some((r) => r.values.title === 'A new one'));

    // Nothing changed: the newest issue comes again (since is inclusive) and is not written again.
    const quiet = await synced(source.id);
    assert.deepEqual([quiet.created, quiet.updated, quiet.deleted], [0, 0, 0]);

    // A deleted issue is not listed by GitHub at all: an incremental read cannot see it, a full one can.
    gh.issues = gh.issues.filter((i) => i.number !== 9);
    const unseen = await synced(source.id);
    assert.deepEqual([unseen.created, unseen.updated, unseen.deleted], [0, 0, 0]);
    const full = await synced(source.id, { full: true });
    assert.deepEqual([full.status, full.created, full.updated, full.deleted], ['succeeded', 0, 0, 1], JSON.stringify(full));
    rows = await records(source.database_id);
    assert.equal(rows.length, 125);
    assert.ok(!rows.some((r) => r.values.number === 9));
  });

  it('a run GitHub rate-limits past the wait the sources plugin takes fails, and says when it goes on', async () => {
    const connection = (await t.request.post(api('/connections')).set(owner.auth).send({ provider: 'github', name: 'Limited', credentials: { token: gh.token } }).expect(201)).body;
    const source = (await t.request
      .post(api('/sources'))
      .set(owner.auth)
      .send({ kind: 'github.issues', name: 'Limited issues', connection_id: connection.id, config: { repository: `${gh.owner}/${gh.repo}`, state: 'open' } })
      .expect(201)).body;
    gh.override = (_req, res, url) => {
      if (!url.pathname.endsWith('/issues')) return false;
      res.writeHead(403, { 'content-type': 'application/json', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600) });
      res.end(JSON.stringify({ message: 'API rate limit exceeded' }));
      return true;
    };
    try {
      const run = await synced(source.id);
      assert.equal(run.status, 'failed');
      assert.match(run.error, /asked to wait 3[56][0-9]{2} s/);
    } finally {
      gh.override = null;
    }
    const next = await synced(source.id);
    assert.equal(next.status, 'succeeded');
    assert.ok(next.created > 0);
  });
});
