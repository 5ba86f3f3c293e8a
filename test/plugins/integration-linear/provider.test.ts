import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LinearWebhookClient } from '@linear/sdk/webhooks';
import { ActionFailed, EVENT_PATTERN, refused, type InboundDelivery, type ReadDelivery, type Refusal } from '../../../plugins/integrations/public.ts';
import { LinearApi, LinearFailure } from '../../../plugins/integration-linear/linear-client.ts';
import { linearProvider, readLinearDelivery } from '../../../plugins/integration-linear/provider.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';

const SECRET = 'lin_wh_Zx9qRk2mT7vB4nC8pL1sD6fG3hJ5';
const KEY = 'lin_api_S3cretKeyValue0123456789abcdefABCDEFGHIJ';
const TEAM_ID = '9cfb482a-81e3-4154-b5b9-2c805e70a02d';
const NOW = Date.UTC(2025, 4, 14, 9, 30, 0, 250);

/** Signs as Linear does (hex HMAC-SHA256 of the body); checked below against @linear/sdk's own `verify`. */
const linearSignature = (secret: string, body: string | Buffer) => createHmac('sha256', secret).update(body).digest('hex');

function issuePayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    action: 'create',
    actor: { id: '2e6eea91-1111-4aaa-8bbb-2f2e7a0b0c0d', type: 'user', name: 'Ana Lima' },
    createdAt: '2025-05-14T09:29:59.000Z',
    data: {
      id: 'b6c1f0d2-3e4f-4a5b-9c8d-7e6f5a4b3c2d',
      identifier: 'ENG-123',
      number: 123,
      title: 'Ünïcødé and emoji 🐛 survive',
      teamId: TEAM_ID,
      priority: 2,
      labelIds: [],
    },
    url: 'https://linear.app/acme/issue/ENG-123/unicode-and-emoji-survive',
    type: 'Issue',
    organizationId: 'e8f2c3a1-0b9d-4c7e-8f6a-5d4c3b2a1f0e',
    webhookTimestamp: NOW - 1_500,
    webhookId: '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
    ...overrides,
  };
}

/** A delivery as Linear sends it: the headers Linear sets, the body signed with the webhook's secret. */
function linearDelivery(payload: unknown, opts: { secret?: string; id?: string; now?: number } = {}): InboundDelivery {
  const body = JSON.stringify(payload);
  return {
    rawBody: Buffer.from(body, 'utf8'),
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'Linear-Webhook',
      'linear-delivery': opts.id ?? '7d4b3c2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a',
      'linear-event': typeof payload === 'object' && payload ? String((payload as { type?: unknown }).type) : 'Issue',
      'linear-signature': linearSignature(opts.secret ?? SECRET, body),
    },
    secret: SECRET,
    now: opts.now ?? NOW,
  };
}

function read(delivery: InboundDelivery): ReadDelivery {
  const outcome = readLinearDelivery(delivery);
  if (refused(outcome)) assert.fail(`refused: ${outcome.refused}`);
  assert.match(outcome.event, EVENT_PATTERN);
  return outcome;
}

function refusal(delivery: InboundDelivery): string {
  const outcome = readLinearDelivery(delivery);
  assert.ok(refused(outcome), `expected a refusal, got ${JSON.stringify(outcome)}`);
  const text = (outcome as Refusal).refused;
  assert.equal(typeof text, 'string');
  assert.ok(text.length > 10, text);
  assert.ok(!text.includes(SECRET), text);
  return text;
}

/** Linear's answer to a key it does not know, as Linear gives it (HTTP 401, `authentication error`). */
const AUTHENTICATION_ERROR = {
  errors: [
    {
      message: 'Authentication required, not authenticated',
      extensions: {
        type: 'authentication error',
        code: 'AUTHENTICATION_ERROR',
        statusCode: 401,
        userError: true,
        userPresentableMessage: 'You need to authenticate to access this operation.',
        meta: {},
        http: { status: 401 },
      },
    },
  ],
};

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: { query?: string; variables?: Record<string, unknown> };
}

/**
 * A loopback server that speaks Linear's GraphQL endpoint at `/graphql`: `{ data }` for what it knows, Linear's
 * error answers (`errors[].extensions.type`) for a wrong key or an unknown team. It records what it was sent.
 */
async function fakeLinear(): Promise<{ url: string; seen: Seen[]; respond: (handler: http.RequestListener) => void; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  let handler: http.RequestListener = (req, res) => {
    const { query = '', variables = {} } = seen[seen.length - 1].body;
    if (req.method !== 'POST' || req.url !== '/graphql') return json(res, 404, { errors: [{ message: 'Not found' }] });
    if (req.headers.authorization !== KEY) return json(res, 401, AUTHENTICATION_ERROR);
    if (/\bviewer\b/.test(query))
      return json(res, 200, { data: { viewer: { id: 'a1b2c3d4-0000-4000-8000-000000000001', name: 'Ana Lima', organization: { id: 'e8f2c3a1-0b9d-4c7e-8f6a-5d4c3b2a1f0e', name: 'Acme' } } } });
    if (/\bissueCreate\b/.test(query)) {
      const input = (variables.input ?? {}) as { teamId?: string; title?: string };
      if (input.teamId !== TEAM_ID)
        return json(res, 400, {
          errors: [
            {
              message: 'Entity not found: Team',
              path: ['issueCreate'],
              extensions: { type: 'invalid input', code: 'INPUT_ERROR', statusCode: 400, userError: true, userPresentableMessage: 'Could not find referenced Team.' },
            },
          ],
          data: null,
        });
      return json(res, 200, {
        data: {
          issueCreate: {
            success: true,
            issue: { id: 'c0ffee00-1234-4abc-9def-000000000042', identifier: 'ENG-42', title: input.title, url: 'https://linear.app/acme/issue/ENG-42/from-tessera' },
          },
        },
      });
    }
    return json(res, 400, { errors: [{ message: 'Cannot query field', extensions: { type: 'graphql error', code: 'GRAPHQL_VALIDATION_FAILED', userError: true } }] });
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Seen['body'] = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = {};
      }
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    seen,
    respond: (h) => void (handler = h),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('integration-linear provider', () => {
  storageIndependent();

  it('declares Linear: id, name, category, an API key field, signatures with a shared secret, its events', () => {
    const provider = linearProvider();
    assert.equal(provider.id, 'linear');
    assert.equal(provider.name, 'Linear');
    assert.deepEqual(provider.categories, ['issue_tracking']);
    assert.deepEqual(provider.auth, { type: 'api_key', fields: [{ name: 'api_key', label: 'Personal API key', secret: true }] });
    assert.equal(provider.signsWithSharedSecret, true);
    for (const event of ['issue.create', 'issue.update', 'comment.create', 'comment.update']) assert.ok(provider.events?.includes(event), event);
    for (const event of provider.events ?? []) assert.match(event, EVENT_PATTERN);
    assert.equal(provider.verifyWebhook, readLinearDelivery);
  });

  it('refuses an apiUrl the SDK would refuse (plain http to another machine) when the provider is made', () => {
    assert.throws(() => linearProvider({ apiUrl: 'http://linear.example.com/graphql' }), /https/);
    assert.doesNotThrow(() => linearProvider({ apiUrl: 'http://localhost:4000/graphql' }));
  });

  describe('verifyWebhook', () => {
    it('reads a delivery signed as Linear signs it: <type>.<action>, Linear-Delivery, the payload', () => {
      const payload = issuePayload();
      const got = read(linearDelivery(payload, { id: 'a9b8c7d6-e5f4-4321-8765-0fedcba98765' }));
      assert.equal(got.event, 'issue.create');
      assert.equal(got.deliveryId, 'a9b8c7d6-e5f4-4321-8765-0fedcba98765');
      assert.deepEqual(got.payload, payload);
      assert.equal(got.reply, undefined);
      assert.equal(read(linearDelivery(issuePayload({ type: 'Comment', action: 'update' }))).event, 'comment.update');
      assert.equal(read(linearDelivery(issuePayload({ type: 'IssueLabel', action: 'remove' }))).event, 'issuelabel.remove');
      assert.equal(read(linearDelivery(issuePayload({ type: 'AppUserNotification', action: 'issueMention' }))).event, 'appusernotification.issuemention');
    });

    it("agrees with @linear/sdk's verifier: what it accepts is read, what it refuses is refused", () => {
      const now = Date.now();
      const payload = issuePayload({ webhookTimestamp: now - 1_000 });
      const delivery = linearDelivery(payload, { now });
      const signature = delivery.headers['linear-signature'] as string;
      const sdk = new LinearWebhookClient(SECRET);
      // The SDK checks the signature and the signed webhookTimestamp against its clock; it throws when either fails.
      assert.equal(sdk.verify(delivery.rawBody, signature), true);
      assert.deepEqual(sdk.parseData(delivery.rawBody, signature), payload);
      assert.equal(read(delivery).event, 'issue.create');

      const forged = linearDelivery(payload, { secret: 'not-the-webhook-secret', now });
      assert.throws(() => sdk.verify(forged.rawBody, forged.headers['linear-signature'] as string));
      assert.match(refusal(forged), /does not match/);

      const stale = linearDelivery(issuePayload({ webhookTimestamp: now - 61_000 }), { now });
      assert.throws(() => sdk.verify(stale.rawBody, stale.headers['linear-signature'] as string), /timestamp/);
      assert.match(refusal(stale), /61 s old/);
    });

    it('gives a null delivery id when Linear sent no Linear-Delivery header', () => {
      const delivery = linearDelivery(issuePayload());
      delete delivery.headers['linear-delivery'];
      assert.equal(read(delivery).deliveryId, null);
    });

    it('accepts a webhookTimestamp 60 s old or ahead, and refuses 61 s either way', () => {
      assert.equal(read(linearDelivery(issuePayload({ webhookTimestamp: NOW - 60_000 }))).event, 'issue.create');
      assert.equal(read(linearDelivery(issuePayload({ webhookTimestamp: NOW + 60_000 }))).event, 'issue.create');
      assert.match(refusal(linearDelivery(issuePayload({ webhookTimestamp: NOW - 61_000 }))), /61 s old/);
      assert.match(refusal(linearDelivery(issuePayload({ webhookTimestamp: NOW + 61_000 }))), /61 s in the future/);
      assert.match(refusal(linearDelivery(issuePayload({ webhookTimestamp: NOW - 3_600_000 }))), /3600 s old/);
    });

    it('refuses a delivery without a webhookTimestamp, or with one that is not milliseconds', () => {
      const { webhookTimestamp: _dropped, ...undated } = issuePayload();
      assert.match(refusal(linearDelivery(undated)), /no webhookTimestamp/);
      assert.match(refusal(linearDelivery(issuePayload({ webhookTimestamp: String(NOW) }))), /not a number/);
      assert.match(refusal(linearDelivery(issuePayload({ webhookTimestamp: null }))), /no webhookTimestamp/);
    });

    it('refuses a delivery signed with another secret', () => {
      assert.match(refusal(linearDelivery(issuePayload(), { secret: 'someone-elses-secret' })), /does not match/);
    });

    it('refuses a delivery whose body changed by one byte after signing', () => {
      const delivery = linearDelivery(issuePayload());
      const changed = Buffer.from(delivery.rawBody);
      changed[changed.indexOf('ENG-123') + 4] = '9'.charCodeAt(0);
      assert.notDeepEqual(changed, delivery.rawBody);
      assert.match(refusal({ ...delivery, rawBody: changed }), /does not match/);
      assert.match(refusal({ ...delivery, rawBody: Buffer.concat([delivery.rawBody, Buffer.from(' ')]) }), /does not match/);
    });

    it('refuses a delivery without Linear-Signature', () => {
      const delivery = linearDelivery(issuePayload());
      delete delivery.headers['linear-signature'];
      assert.match(refusal(delivery), /no Linear-Signature/);
    });

    it('refuses a malformed Linear-Signature header', () => {
      const delivery = linearDelivery(issuePayload());
      const signature = delivery.headers['linear-signature'] as string;
      for (const bad of ['', 'xyz', 'g'.repeat(64), signature.slice(1), `${signature}00`, `sha256=${signature}`, `v0=${signature}`]) {
        const text = refusal({ ...delivery, headers: { ...delivery.headers, 'linear-signature': bad } });
        assert.match(text, bad ? /malformed/ : /no Linear-Signature/, bad);
      }
    });

    it('accepts the signature in upper-case hex', () => {
      const delivery = linearDelivery(issuePayload());
      assert.equal(read({ ...delivery, headers: { ...delivery.headers, 'linear-signature': (delivery.headers['linear-signature'] as string).toUpperCase() } }).event, 'issue.create');
    });

    it('refuses every delivery of a connection without a secret', () => {
      const delivery = linearDelivery(issuePayload());
      assert.match(refusal({ ...delivery, secret: null }), /no webhook secret/);
      assert.match(refusal({ ...delivery, secret: '' }), /no webhook secret/);
    });

    it('refuses signed bodies it cannot read, with a sentence', () => {
      const signed = (body: string): InboundDelivery => ({ ...linearDelivery({}), rawBody: Buffer.from(body), headers: { 'linear-signature': linearSignature(SECRET, body) } });
      assert.match(refusal(signed('not json')), /not JSON/);
      assert.match(refusal(signed('[1,2]')), /not a JSON object/);
      assert.match(refusal(linearDelivery(issuePayload({ action: undefined }))), /no type and action/);
      assert.match(refusal(linearDelivery(issuePayload({ type: 42 }))), /no type and action/);
      assert.match(refusal(linearDelivery(issuePayload({ type: '_Issue' }))), /not an event name/);
    });
  });

  describe('test(credentials)', () => {
    let linear: Awaited<ReturnType<typeof fakeLinear>>;
    afterEach(async () => {
      await linear?.close();
    });

    it('signs in with viewer, sending the key as Linear asks (Authorization: <key>, a JSON POST)', async () => {
      linear = await fakeLinear();
      const outcome = await linearProvider({ apiUrl: linear.url }).test({ api_key: KEY });
      assert.deepEqual(outcome, { ok: true, detail: 'Signed in as Ana Lima in Acme', account: { id: 'a1b2c3d4-0000-4000-8000-000000000001', name: 'Ana Lima' } });
      assert.equal(linear.seen.length, 1);
      const [request] = linear.seen;
      assert.equal(request.method, 'POST');
      assert.equal(request.url, '/graphql');
      assert.equal(request.headers.authorization, KEY);
      assert.match(request.headers['content-type'] ?? '', /^application\/json/);
      assert.match(request.body.query ?? '', /viewer\s*\{\s*id\s+name/);
    });

    it("answers ok false with Linear's reason for a key it refuses (401, authentication error), never with the key", async () => {
      linear = await fakeLinear();
      const wrong = 'lin_api_WrongKeyValue9876543210zyxwvuZYXWVUTSRQ';
      const outcome = await linearProvider({ apiUrl: linear.url }).test({ api_key: wrong });
      assert.equal(outcome.ok, false);
      assert.equal(outcome.detail, 'Linear refused the API key: Authentication required, not authenticated - You need to authenticate to access this operation.');
      assert.equal(outcome.account, undefined);
      assert.equal(linear.seen[0].headers.authorization, wrong);
      assert.ok(!outcome.detail.includes(wrong));
    });

    it('reads a bare 401 or 403 by its status, takes a GraphQL error at its word, and scrubs a key Linear would echo', async () => {
      linear = await fakeLinear();
      linear.respond((_req, res) => {
        res.writeHead(401);
        res.end('Unauthorized');
      });
      assert.deepEqual(await linearProvider({ apiUrl: linear.url }).test({ api_key: KEY }), { ok: false, detail: 'Linear refused the API key (HTTP 401).' });
      linear.respond((_req, res) => {
        res.writeHead(403, { 'content-type': 'text/plain' });
        res.end('Forbidden');
      });
      assert.deepEqual(await linearProvider({ apiUrl: linear.url }).test({ api_key: KEY }), { ok: false, detail: 'Linear refused this key access (HTTP 403).' });
      linear.respond((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ errors: [{ message: `Key ${KEY} may not read this`, extensions: { type: 'forbidden' } }] }));
      });
      const echoed = await linearProvider({ apiUrl: linear.url }).test({ api_key: KEY });
      assert.equal(echoed.ok, false);
      assert.equal(echoed.detail, 'Key [key] may not read this');
    });

    it('answers ok false when apiUrl is not Linear (a 404 page, a 200 without a viewer, a redirect)', async () => {
      linear = await fakeLinear();
      linear.respond((_req, res) => {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<html>Not found</html>');
      });
      const missing = await linearProvider({ apiUrl: linear.url }).test({ api_key: KEY });
      assert.equal(missing.ok, false);
      assert.match(missing.detail, /HTTP 404 without a GraphQL answer.*apiUrl/);
      linear.respond((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: { viewer: null } }));
      });
      const empty = await linearProvider({ apiUrl: linear.url }).test({ api_key: KEY });
      assert.equal(empty.ok, false);
      assert.match(empty.detail, /without a Linear user/);
      linear.respond((_req, res) => {
        res.writeHead(307, { location: 'http://127.0.0.1:9/graphql' });
        res.end();
      });
      const moved = await linearProvider({ apiUrl: linear.url }).test({ api_key: KEY });
      assert.equal(moved.ok, false);
      assert.match(moved.detail, /redirect \(307\), which is not followed/);
      assert.equal(linear.seen.length, 3);
    });

    it('answers ok false when Linear cannot be reached (a closed port)', async () => {
      linear = await fakeLinear();
      const url = linear.url;
      await linear.close();
      const outcome = await linearProvider({ apiUrl: url }).test({ api_key: KEY });
      assert.equal(outcome.ok, false);
      assert.match(outcome.detail, /^Linear could not be reached: .*ECONNREFUSED/);
      assert.ok(!outcome.detail.includes(KEY));
    });

    it('answers ok false when Linear does not answer in time', async () => {
      linear = await fakeLinear();
      linear.respond(() => undefined);
      const started = Date.now();
      const outcome = await linearProvider({ apiUrl: linear.url, timeoutMs: 200 }).test({ api_key: KEY });
      assert.deepEqual(outcome, { ok: false, detail: 'Linear could not be reached: no answer within 0.2 s' });
      assert.ok(Date.now() - started < 5000);
    });

    it('sends no request for a missing key or one no header can carry, and does not repeat it', async () => {
      linear = await fakeLinear();
      const provider = linearProvider({ apiUrl: linear.url });
      assert.deepEqual(await provider.test({}), { ok: false, detail: 'The API key is empty.' });
      const broken = `${KEY}\r\nX-Injected: 1`;
      const outcome = await provider.test({ api_key: broken });
      assert.equal(outcome.ok, false);
      assert.match(outcome.detail, /characters no Linear key has/);
      assert.ok(!outcome.detail.includes(KEY));
      assert.equal(linear.seen.length, 0);
    });
  });

  describe('LinearApi.createIssue', () => {
    let linear: Awaited<ReturnType<typeof fakeLinear>>;
    afterEach(async () => {
      await linear?.close();
    });

    it("is the linear_create_issue action: opened with the connection's key, a refusal an ActionFailed without it", async () => {
      linear = await fakeLinear();
      const [action] = linearProvider({ apiUrl: linear.url }).actions!;
      assert.equal(action.type, 'linear_create_issue');
      const made = await action.run({ credentials: { api_key: KEY }, config: { team_id: TEAM_ID, title: 'From Tessera: ünïcødé' } });
      assert.deepEqual(made, { id: 'c0ffee00-1234-4abc-9def-000000000042', identifier: 'ENG-42', url: 'https://linear.app/acme/issue/ENG-42/from-tessera' });
      assert.deepEqual(linear.seen[0].body.variables, { input: { teamId: TEAM_ID, title: 'From Tessera: ünïcødé' } });
      const refused = await action.run({ credentials: { api_key: KEY }, config: { team_id: 'no-such-team', title: 'x' } }).then(() => assert.fail('created'), (err: unknown) => err);
      assert.ok(refused instanceof ActionFailed);
      assert.equal((refused as Error).message, 'Entity not found: Team - Could not find referenced Team.');
    });

    it('opens an issue with the issueCreate mutation, the input as variables, the key as Linear asks', async () => {
      linear = await fakeLinear();
      const api = new LinearApi({ apiUrl: linear.url });
      const created = await api.createIssue(KEY, { teamId: TEAM_ID, title: 'From Tessera: ünïcødé', description: '**Record** 42 changed' });
      assert.deepEqual(created, { id: 'c0ffee00-1234-4abc-9def-000000000042', identifier: 'ENG-42', title: 'From Tessera: ünïcødé', url: 'https://linear.app/acme/issue/ENG-42/from-tessera' });
      const [request] = linear.seen;
      assert.equal(request.headers.authorization, KEY);
      assert.match(request.body.query ?? '', /mutation \w+\(\$input: IssueCreateInput!\) \{\s*issueCreate\(input: \$input\)/);
      assert.deepEqual(request.body.variables, { input: { teamId: TEAM_ID, title: 'From Tessera: ünïcødé', description: '**Record** 42 changed' } });
    });

    it("throws a LinearFailure with Linear's reason for an unknown team (invalid input)", async () => {
      linear = await fakeLinear();
      const err = await new LinearApi({ apiUrl: linear.url }).createIssue(KEY, { teamId: 'no-such-team', title: 'x' }).then(
        () => assert.fail('created'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof LinearFailure);
      assert.equal(err.kind, 'invalid_input');
      assert.equal(err.message, 'Entity not found: Team - Could not find referenced Team.');
      assert.equal(err.details.status, 400);
    });

    it('throws a refused LinearFailure for a wrong key, and an unreachable one for a closed port, never naming the key', async () => {
      linear = await fakeLinear();
      const wrong = 'lin_api_NotTheRightOne000000000000000000000';
      const api = new LinearApi({ apiUrl: linear.url });
      const refusedErr = await api.createIssue(wrong, { teamId: TEAM_ID, title: 'x' }).then(
        () => assert.fail('created'),
        (e: unknown) => e,
      );
      assert.ok(refusedErr instanceof LinearFailure);
      assert.equal(refusedErr.kind, 'refused');
      assert.match(refusedErr.message, /Authentication required/);
      assert.ok(!refusedErr.message.includes(wrong));
      const url = linear.url;
      await linear.close();
      const unreachable = await new LinearApi({ apiUrl: url }).createIssue(KEY, { teamId: TEAM_ID, title: 'x' }).then(
        () => assert.fail('created'),
        (e: unknown) => e,
      );
      assert.ok(unreachable instanceof LinearFailure);
      assert.equal(unreachable.kind, 'unreachable');
      assert.match(unreachable.message, /ECONNREFUSED/);
      assert.ok(!unreachable.message.includes(KEY));
    });
  });
});
