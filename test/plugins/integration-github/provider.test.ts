import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sign, verify } from '@octokit/webhooks-methods';
import { refused, type InboundDelivery, type ReadDelivery, type Refusal } from '../../../plugins/integrations/public.ts';
import { githubProvider, readGithubDelivery } from '../../../plugins/integration-github/provider.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';

const SECRET = 'whsec_the-connection-secret';
const TOKEN = 'ghp_S3cretTokenValue0123456789abcdefABCD';

/** A delivery as GitHub sends it: the body signed with @octokit/webhooks-methods' `sign`, GitHub's own implementation. */
async function githubDelivery(event: string, payload: unknown, opts: { secret?: string; id?: string } = {}): Promise<InboundDelivery> {
  const body = JSON.stringify(payload);
  const signature = await sign(opts.secret ?? SECRET, body);
  return {
    rawBody: Buffer.from(body, 'utf8'),
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/abc1234',
      'x-github-event': event,
      'x-github-delivery': opts.id ?? '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      'x-github-hook-id': '292430182',
      'x-hub-signature-256': signature,
    },
    secret: SECRET,
    now: Date.now(),
  };
}

function read(delivery: InboundDelivery): ReadDelivery {
  const outcome = readGithubDelivery(delivery);
  if (refused(outcome)) assert.fail(`refused: ${outcome.refused}`);
  return outcome;
}

function refusal(delivery: InboundDelivery): string {
  const outcome = readGithubDelivery(delivery);
  assert.ok(refused(outcome), `expected a refusal, got ${JSON.stringify(outcome)}`);
  const text = (outcome as Refusal).refused;
  assert.equal(typeof text, 'string');
  assert.ok(text.length > 10, text);
  return text;
}

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

/** A loopback server that speaks GitHub's `GET /user` under `prefix`, and records what it was sent. */
async function fakeGithub(prefix = ''): Promise<{ url: string; seen: Seen[]; respond: (handler: http.RequestListener) => void; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  let handler: http.RequestListener = (req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET' || req.url !== `${prefix}/user`) return json(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return json(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });
    return json(200, { login: 'octocat', id: 583231, type: 'User', name: 'The Octocat' });
  };
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    seen,
    respond: (h) => void (handler = h),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('integration-github provider', () => {
  storageIndependent();

  it('declares GitHub: id, name, category, a token field, signatures with a shared secret, its events', () => {
    const provider = githubProvider();
    assert.equal(provider.id, 'github');
    assert.equal(provider.name, 'GitHub');
    assert.deepEqual(provider.categories, ['code_hosting']);
    assert.deepEqual(provider.auth, { type: 'api_key', fields: [{ name: 'token', label: 'Personal access token', secret: true }] });
    assert.equal(provider.signsWithSharedSecret, true);
    for (const event of ['push', 'issues', 'issue_comment', 'pull_request', 'release', 'ping']) assert.ok(provider.events?.includes(event), event);
    assert.equal(typeof provider.verifyWebhook, 'function');
  });

  describe('verifyWebhook', () => {
    it('reads a delivery signed as GitHub signs it: event with its action, delivery id, payload', async () => {
      const payload = { action: 'opened', issue: { number: 1347, title: 'Found a bug', body: 'Ünïcødé and emoji 🐛 survive' }, repository: { full_name: 'octocat/Hello-World' } };
      const delivery = await githubDelivery('issues', payload, { id: 'b3a1f7e0-1c2d-11ef-9a4b-1f2e3d4c5b6a' });
      // The fixture is what GitHub would send: the library's own verify accepts it.
      assert.equal(await verify(SECRET, delivery.rawBody.toString('utf8'), delivery.headers['x-hub-signature-256'] as string), true);
      const got = read(delivery);
      assert.equal(got.event, 'issues.opened');
      assert.equal(got.deliveryId, 'b3a1f7e0-1c2d-11ef-9a4b-1f2e3d4c5b6a');
      assert.deepEqual(got.payload, payload);
      assert.equal(got.reply, undefined);
    });

    it('names an event without an action by the event alone, lower-cased; ping is an event like any other', async () => {
      const push = read(await githubDelivery('push', { ref: 'refs/heads/main', before: '0'.repeat(40), after: 'a'.repeat(40), commits: [] }));
      assert.equal(push.event, 'push');
      assert.deepEqual(push.payload, { ref: 'refs/heads/main', before: '0'.repeat(40), after: 'a'.repeat(40), commits: [] });
      const ping = read(await githubDelivery('PING', { zen: 'Keep it logically awesome.', hook_id: 292430182 }));
      assert.equal(ping.event, 'ping');
      assert.deepEqual(ping.payload, { zen: 'Keep it logically awesome.', hook_id: 292430182 });
      const review = read(await githubDelivery('pull_request', { action: 'ready_for_review', number: 2 }));
      assert.equal(review.event, 'pull_request.ready_for_review');
    });

    it('gives a null delivery id when GitHub sent none', async () => {
      const delivery = await githubDelivery('push', { ref: 'refs/heads/main' });
      delete delivery.headers['x-github-delivery'];
      assert.equal(read(delivery).deliveryId, null);
    });

    it('refuses a delivery signed with another secret', async () => {
      const text = refusal(await githubDelivery('issues', { action: 'opened' }, { secret: 'someone-elses-secret' }));
      assert.match(text, /does not match/);
    });

    it('refuses a delivery whose body lost or changed one byte after signing', async () => {
      const delivery = await githubDelivery('issues', { action: 'opened', issue: { number: 1 } });
      const changed = Buffer.from(delivery.rawBody);
      changed[changed.indexOf('1'.charCodeAt(0))] = '2'.charCodeAt(0);
      assert.notDeepEqual(changed, delivery.rawBody);
      assert.match(refusal({ ...delivery, rawBody: changed }), /does not match/);
      assert.match(refusal({ ...delivery, rawBody: delivery.rawBody.subarray(0, delivery.rawBody.length - 1) }), /does not match/);
    });

    it('refuses a delivery without X-Hub-Signature-256', async () => {
      const delivery = await githubDelivery('push', { ref: 'refs/heads/main' });
      delete delivery.headers['x-hub-signature-256'];
      assert.match(refusal(delivery), /no X-Hub-Signature-256/);
    });

    it('refuses a SHA-1 signature, whether in the sha256 header or alone in X-Hub-Signature', async () => {
      const delivery = await githubDelivery('push', { ref: 'refs/heads/main' });
      const hex = (delivery.headers['x-hub-signature-256'] as string).slice('sha256='.length);
      assert.match(refusal({ ...delivery, headers: { ...delivery.headers, 'x-hub-signature-256': `sha1=${hex.slice(0, 40)}` } }), /SHA-1/);
      // The right digest under the wrong prefix is still refused.
      assert.match(refusal({ ...delivery, headers: { ...delivery.headers, 'x-hub-signature-256': `sha1=${hex}` } }), /SHA-1/);
      const { 'x-hub-signature-256': _, ...rest } = delivery.headers;
      assert.match(refusal({ ...delivery, headers: { ...rest, 'x-hub-signature': `sha1=${hex.slice(0, 40)}` } }), /SHA-1/);
    });

    it('refuses a malformed signature header', async () => {
      const delivery = await githubDelivery('push', { ref: 'refs/heads/main' });
      for (const bad of ['sha256=', 'sha256=xyz', `sha256=${'g'.repeat(64)}`, 'garbage', `${delivery.headers['x-hub-signature-256']}00`]) {
        assert.match(refusal({ ...delivery, headers: { ...delivery.headers, 'x-hub-signature-256': bad } }), /malformed/, bad);
      }
    });

    it('refuses every delivery of a connection without a secret', async () => {
      const delivery = await githubDelivery('push', { ref: 'refs/heads/main' });
      assert.match(refusal({ ...delivery, secret: null }), /no webhook secret/);
      assert.match(refusal({ ...delivery, secret: '' }), /no webhook secret/);
    });

    it('refuses a signed delivery without X-GitHub-Event, or with one that is not an event name', async () => {
      const delivery = await githubDelivery('issues', { action: 'opened' });
      delete delivery.headers['x-github-event'];
      assert.match(refusal(delivery), /no X-GitHub-Event/);
      for (const bad of ['issues.opened', 'pull-request', 'issues opened', '../x']) {
        const other = await githubDelivery(bad, { action: 'opened' });
        assert.match(refusal(other), /X-GitHub-Event header is not an event name/, bad);
      }
    });

    it('refuses a signed body that is not JSON, saying to choose application/json', async () => {
      const body = `payload=${encodeURIComponent(JSON.stringify({ zen: 'hi' }))}`;
      const delivery: InboundDelivery = {
        rawBody: Buffer.from(body),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-github-event': 'ping', 'x-hub-signature-256': await sign(SECRET, body) },
        secret: SECRET,
        now: Date.now(),
      };
      assert.match(refusal(delivery), /form-encoded.*application\/json/);
      const text = 'not json at all';
      assert.match(refusal({ ...delivery, rawBody: Buffer.from(text), headers: { ...delivery.headers, 'content-type': 'application/json', 'x-hub-signature-256': await sign(SECRET, text) } }), /not JSON/);
    });
  });

  describe('test(credentials)', () => {
    let github: Awaited<ReturnType<typeof fakeGithub>>;
    afterEach(async () => {
      await github?.close();
    });

    it('signs in with the token through GET /user, sending the headers GitHub asks for', async () => {
      github = await fakeGithub();
      const outcome = await githubProvider({ apiUrl: github.url }).test({ token: TOKEN });
      assert.deepEqual(outcome, { ok: true, detail: 'Signed in as octocat', account: { id: '583231', name: 'octocat' } });
      assert.equal(github.seen.length, 1);
      const [request] = github.seen;
      assert.equal(request.method, 'GET');
      assert.equal(request.url, '/user');
      assert.equal(request.headers.authorization, `Bearer ${TOKEN}`);
      assert.equal(request.headers.accept, 'application/vnd.github+json');
      assert.equal(request.headers['x-github-api-version'], '2022-11-28');
      assert.equal(request.headers['user-agent'], 'Tessera');
    });

    it('talks to a GitHub Enterprise root (https://HOST/api/v3), with or without a trailing slash', async () => {
      github = await fakeGithub('/api/v3');
      for (const apiUrl of [github.url, `${github.url}/`]) {
        const outcome = await githubProvider({ apiUrl }).test({ token: TOKEN });
        assert.equal(outcome.ok, true, outcome.detail);
      }
      assert.deepEqual(
        github.seen.map((s) => s.url),
        ['/api/v3/user', '/api/v3/user'],
      );
    });

    it('answers ok false with GitHub\'s message for a refused token (401), never with the token', async () => {
      github = await fakeGithub();
      const wrong = 'ghp_WrongTokenValue9876543210zyxwvuZYXW';
      const outcome = await githubProvider({ apiUrl: github.url }).test({ token: wrong });
      assert.equal(outcome.ok, false);
      assert.equal(outcome.detail, 'Bad credentials');
      assert.equal(outcome.account, undefined);
      assert.equal(github.seen[0].headers.authorization, `Bearer ${wrong}`);
      assert.ok(!outcome.detail.includes(wrong));
    });

    it('answers ok false for a 403, with GitHub\'s message or a sentence, and scrubs a token GitHub would echo', async () => {
      github = await fakeGithub();
      github.respond((_req, res) => {
        res.writeHead(403, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: `Resource not accessible by token ${TOKEN}` }));
      });
      const echoed = await githubProvider({ apiUrl: github.url }).test({ token: TOKEN });
      assert.equal(echoed.ok, false);
      assert.equal(echoed.detail, 'Resource not accessible by token [token]');
      github.respond((_req, res) => {
        res.writeHead(403);
        res.end();
      });
      const bare = await githubProvider({ apiUrl: github.url }).test({ token: TOKEN });
      assert.equal(bare.ok, false);
      assert.match(bare.detail, /refused this token/);
      assert.ok(!bare.detail.includes(TOKEN));
    });

    it('answers ok false when apiUrl is not GitHub\'s API (404, or 200 without a user)', async () => {
      github = await fakeGithub('/api/v3');
      const missing = await githubProvider({ apiUrl: github.url.replace('/api/v3', '') }).test({ token: TOKEN });
      assert.equal(missing.ok, false);
      assert.match(missing.detail, /404.*apiUrl/);
      github.respond((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>GitHub Enterprise sign-in</html>');
      });
      const html = await githubProvider({ apiUrl: github.url }).test({ token: TOKEN });
      assert.equal(html.ok, false);
      assert.match(html.detail, /without a GitHub user/);
    });

    it('answers ok false when GitHub cannot be reached (a closed port)', async () => {
      github = await fakeGithub();
      const url = github.url;
      await github.close();
      const outcome = await githubProvider({ apiUrl: url }).test({ token: TOKEN });
      assert.equal(outcome.ok, false);
      assert.match(outcome.detail, /^GitHub could not be reached: .*ECONNREFUSED/);
      assert.ok(!outcome.detail.includes(TOKEN));
    });

    it('answers ok false when GitHub does not answer in time', async () => {
      github = await fakeGithub();
      github.respond(() => undefined);
      const started = Date.now();
      const outcome = await githubProvider({ apiUrl: github.url, timeoutMs: 200 }).test({ token: TOKEN });
      assert.equal(outcome.ok, false);
      assert.equal(outcome.detail, 'GitHub could not be reached: no answer within 0.2 s');
      assert.ok(Date.now() - started < 5000);
    });

    it('sends no request for a missing token or one no header can carry, and does not repeat it', async () => {
      github = await fakeGithub();
      const provider = githubProvider({ apiUrl: github.url });
      const empty = await provider.test({});
      assert.deepEqual(empty, { ok: false, detail: 'The token is empty.' });
      const broken = `${TOKEN}\r\nX-Injected: 1`;
      const outcome = await provider.test({ token: broken });
      assert.equal(outcome.ok, false);
      assert.match(outcome.detail, /characters no GitHub token has/);
      assert.ok(!outcome.detail.includes(TOKEN));
      assert.equal(github.seen.length, 0);
    });
  });
});
