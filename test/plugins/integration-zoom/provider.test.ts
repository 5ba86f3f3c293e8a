import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EVENT_PATTERN, refused, type InboundDelivery, type ReadDelivery, type Refusal, type TestOutcome } from '../../../plugins/integrations/public.ts';
import { eventOfZoom, readZoomDelivery, zoomProvider } from '../../../plugins/integration-zoom/provider.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';

/** The app's Secret Token (Features → Access → Secret Token): what Zoom signs with, given as the connection's webhook_secret. */
const SECRET = 'zoom-secret-token-0123456789';
const ACCOUNT_ID = 'gYz8S9w5Q5yrDoIvmdClYw';
const CLIENT_ID = 'Xq7vTtRmQ2y1bGk9d0aZ3w';
const CLIENT_SECRET = 'S3cretClientValue0123456789abcdefABCD';
const ACCESS_TOKEN = 'eyJzdiI6IjAwMDAwMSIsImFsZyI6IkhTNTEyIn0.eyJhdWQiOiJodHRwczovL29hdXRoLnpvb20udXMifQ.S1gnatur3';
const INVALID_CLIENT = 'Invalid client_id or client_secret';

/**
 * Signed outside our code: the signature and the challenge's encryptedToken below were computed with
 * `openssl dgst -sha256 -hmac <secret>` (and checked with Python's hmac), so the check cannot agree with itself only.
 */
const VECTOR = {
  timestamp: '1767225600',
  body: '{"event":"meeting.started","event_ts":1767225600123,"payload":{"account_id":"gYz8S9w5Q5yrDoIvmdClYw","object":{"id":"85746065432","topic":"Weekly sync"}}}',
  signature: 'v0=0a6e5808932a10e33ede7a8bb402e0be132b7352f4ec5aa8a6a1a5a5cb25fb94',
  plainToken: 'qgg8vlvZRS6UYooatFL8Aw',
  encryptedToken: 'fa52ecf98b4919aaa696f04cdc156ea40b1eba020707f76b8c9e455168295b87',
};

/** Every detail a test() answered, checked at the end for each secret. */
const details: string[] = [];
const basic = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64');

/** A delivery as Zoom sends one: `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{raw body}`, keyed by the Secret Token. */
function zoomDelivery(body: string | object, opts: { secret?: string; timestamp?: number; now?: number; trackingId?: string | null } = {}): InboundDelivery {
  const now = opts.now ?? Date.now();
  const timestamp = String(opts.timestamp ?? Math.floor(now / 1000));
  const raw = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
  const signature = `v0=${createHmac('sha256', opts.secret ?? SECRET).update(`v0:${timestamp}:${raw.toString('utf8')}`).digest('hex')}`;
  const headers: http.IncomingHttpHeaders = {
    'content-type': 'application/json; charset=utf-8',
    'user-agent': 'Zoom Marketplace/1.0a',
    // The legacy verification token Zoom still sends: it proves nothing and is ignored.
    authorization: 'legacy-verification-token',
    'x-zm-request-timestamp': timestamp,
    'x-zm-signature': signature,
  };
  if (opts.trackingId !== null) headers['x-zm-trackingid'] = opts.trackingId ?? 'v=2.0;clid=aw1;rid=WEB_5e0c4f1a9b2d';
  return { rawBody: raw, headers, secret: SECRET, now };
}

function read(delivery: InboundDelivery): ReadDelivery {
  const outcome = readZoomDelivery(delivery);
  if (refused(outcome)) assert.fail(`refused: ${outcome.refused}`);
  return outcome;
}

function refusal(delivery: InboundDelivery): string {
  const outcome = readZoomDelivery(delivery);
  assert.ok(refused(outcome), `expected a refusal, got ${JSON.stringify(outcome)}`);
  const text = (outcome as Refusal).refused;
  assert.equal(typeof text, 'string');
  assert.ok(text.length > 10, text);
  assert.ok(!text.includes(SECRET), 'a refusal never carries the secret');
  return text;
}

async function tested(outcome: Promise<TestOutcome>): Promise<TestOutcome> {
  const got = await outcome;
  details.push(got.detail);
  for (const secret of [CLIENT_SECRET, ACCESS_TOKEN, basic]) assert.ok(!got.detail.includes(secret), `the detail carries a secret: ${got.detail}`);
  return got;
}

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A loopback server playing both of Zoom's hosts: the OAuth server's `POST /oauth/token` (account credentials grant,
 * HTTP Basic, answers as Zoom does, `{ reason, error }` when refused) and the REST API's `GET /v2/users/me` (Bearer).
 */
async function fakeZoom() {
  const seen: Seen[] = [];
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8' });
    res.end(JSON.stringify(body));
  };
  const zoom: http.RequestListener = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://zoom.invalid');
    if (req.method === 'POST' && url.pathname === '/oauth/token') {
      const params = [...url.searchParams.keys()].sort();
      if (JSON.stringify(params) !== '["account_id","grant_type"]' || url.searchParams.get('grant_type') !== 'account_credentials')
        return json(res, 400, { reason: 'Unsupported grant type', error: 'unsupported_grant_type' });
      const auth = req.headers.authorization ?? '';
      const [id, secret] = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString('utf8').split(':') : [];
      if (id !== CLIENT_ID || secret !== CLIENT_SECRET) return json(res, 400, { reason: INVALID_CLIENT, error: 'invalid_client' });
      if (url.searchParams.get('account_id') !== ACCOUNT_ID) return json(res, 400, { reason: 'Invalid request : Account ID is not valid.', error: 'invalid_request' });
      return json(res, 200, { access_token: ACCESS_TOKEN, token_type: 'bearer', expires_in: 3599, scope: 'user:read:user:admin meeting:read:meeting:admin' });
    }
    if (req.method === 'GET' && url.pathname === '/v2/users/me') {
      if (req.headers.authorization !== `Bearer ${ACCESS_TOKEN}`) return json(res, 401, { code: 124, message: 'Invalid access token.' });
      return json(res, 200, { id: 'KDcuGIm1QgePTO8WbOqwIQ', first_name: 'Jill', last_name: 'Chill', display_name: 'Jill Chill', email: 'jchill@example.com', type: 1, account_id: ACCOUNT_ID });
    }
    return json(res, 404, { code: 404, message: 'Not found' });
  };
  let handler = zoom;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      handler(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const root = `http://127.0.0.1:${port}`;
  return {
    oauthUrl: root,
    apiUrl: `${root}/v2`,
    seen,
    zoom,
    json,
    respond: (h: http.RequestListener) => void (handler = h),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const CREDENTIALS = { account_id: ACCOUNT_ID, client_id: CLIENT_ID, client_secret: CLIENT_SECRET };

describe('integration-zoom provider', () => {
  storageIndependent();

  it('declares Zoom: id, name, category, a Server-to-Server OAuth app\'s three fields, signatures with a shared secret', () => {
    const provider = zoomProvider();
    assert.equal(provider.id, 'zoom');
    assert.equal(provider.name, 'Zoom');
    assert.deepEqual(provider.categories, ['video']);
    assert.equal(provider.auth.type, 'api_key');
    const fields = provider.auth.type === 'api_key' ? provider.auth.fields : [];
    assert.deepEqual(
      fields.map((f) => [f.name, f.secret]),
      [
        ['account_id', false],
        ['client_id', false],
        ['client_secret', true],
      ],
    );
    for (const field of fields) assert.ok(field.label.length > 3, field.name);
    assert.equal(provider.signsWithSharedSecret, true);
    assert.equal(typeof provider.verifyWebhook, 'function');
    for (const event of ['meeting.started', 'meeting.ended', 'recording.completed']) assert.ok(provider.events?.includes(event), event);
    assert.ok(!provider.events?.includes('endpoint.url_validation'), 'the challenge never becomes an event');
    for (const event of provider.events ?? []) assert.match(event, EVENT_PATTERN);
  });

  describe('verifyWebhook', () => {
    it('reads a delivery signed outside our code (an openssl vector): event, payload, the tracking id', async () => {
      const delivery: InboundDelivery = {
        rawBody: Buffer.from(VECTOR.body),
        headers: { 'content-type': 'application/json', 'x-zm-request-timestamp': VECTOR.timestamp, 'x-zm-signature': VECTOR.signature, 'x-zm-trackingid': 'trk-1' },
        secret: SECRET,
        now: Number(VECTOR.timestamp) * 1000 + 2_000,
      };
      const got = await zoomProvider().verifyWebhook!(delivery);
      assert.ok(!refused(got), JSON.stringify(got));
      assert.deepEqual(got, { deliveryId: 'trk-1', event: 'meeting.started', payload: JSON.parse(VECTOR.body) });
      const off = VECTOR.signature.replace(/4$/, '5');
      assert.match(refusal({ ...delivery, headers: { ...delivery.headers, 'x-zm-signature': off } }), /does not match/);
    });

    it('answers the URL validation challenge with the plain token and its HMAC-SHA256 in hex (an openssl vector), storing nothing', () => {
      const body = { payload: { plainToken: VECTOR.plainToken }, event_ts: 1767225600123, event: 'endpoint.url_validation' };
      const got = read(zoomDelivery(body));
      assert.deepEqual(got.reply, { status: 200, body: { plainToken: VECTOR.plainToken, encryptedToken: VECTOR.encryptedToken } });
      assert.equal(got.event, 'endpoint.url_validation');
      // Another plain token, another answer: the token is hashed, not replayed.
      const other = read(zoomDelivery({ ...body, payload: { plainToken: 'Zk3pQ8sTuv1xYw' } }));
      assert.deepEqual(other.reply?.body, { plainToken: 'Zk3pQ8sTuv1xYw', encryptedToken: createHmac('sha256', SECRET).update('Zk3pQ8sTuv1xYw').digest('hex') });
    });

    it('answers no challenge that is not signed with the Secret Token, or that has no plain token', () => {
      const body = { payload: { plainToken: VECTOR.plainToken }, event_ts: 1767225600123, event: 'endpoint.url_validation' };
      assert.match(refusal(zoomDelivery(body, { secret: 'not-the-secret-token' })), /does not match/);
      const unsigned = zoomDelivery(body);
      delete unsigned.headers['x-zm-signature'];
      assert.match(refusal(unsigned), /no x-zm-signature/);
      assert.match(refusal(zoomDelivery({ event: 'endpoint.url_validation', payload: {} })), /no payload\.plainToken/);
      assert.match(refusal(zoomDelivery({ event: 'endpoint.url_validation', payload: { plainToken: 42 } })), /no payload\.plainToken/);
    });

    it('reads events as Zoom names them, with x-zm-trackingid as the delivery id and the body as the payload', () => {
      const payload = {
        event: 'recording.completed',
        event_ts: 1767225900000,
        payload: { account_id: ACCOUNT_ID, object: { uuid: '4444AAAiAAAAAiAiAiiAii==', topic: 'Ünïcødé review 🎥', recording_files: [{ file_type: 'MP4' }] } },
      };
      const got = read(zoomDelivery(payload, { trackingId: 'v=2.0;clid=us05;rid=WEB_abc123' }));
      assert.equal(got.event, 'recording.completed');
      assert.equal(got.deliveryId, 'v=2.0;clid=us05;rid=WEB_abc123');
      assert.deepEqual(got.payload, payload);
      assert.equal(got.reply, undefined);
      assert.equal(read(zoomDelivery({ event: 'meeting.participant_joined', payload: {} })).event, 'meeting.participant_joined');
      assert.equal(read(zoomDelivery({ event: 'Phone.Callee-Ringing', payload: {} })).event, 'phone.callee_ringing');
    });

    it('gives a null delivery id when Zoom sent no x-zm-trackingid (Zoom has no delivery id of its own)', () => {
      assert.equal(read(zoomDelivery({ event: 'meeting.ended', payload: {} }, { trackingId: null })).deliveryId, null);
      assert.equal(read(zoomDelivery({ event: 'meeting.ended', payload: {} }, { trackingId: '  ' })).deliveryId, null);
    });

    it('refuses a delivery signed with another secret', () => {
      assert.match(refusal(zoomDelivery({ event: 'meeting.started', payload: {} }, { secret: 'someone-elses-secret-token' })), /does not match/);
    });

    it('refuses a delivery whose body changed by one byte, or whose timestamp was changed, after signing', () => {
      const delivery = zoomDelivery({ event: 'meeting.started', payload: { object: { id: '1' } } });
      const changed = Buffer.from(delivery.rawBody);
      changed[changed.indexOf('1'.charCodeAt(0))] = '2'.charCodeAt(0);
      assert.notDeepEqual(changed, delivery.rawBody);
      assert.match(refusal({ ...delivery, rawBody: changed }), /does not match/);
      assert.match(refusal({ ...delivery, rawBody: delivery.rawBody.subarray(0, delivery.rawBody.length - 1) }), /does not match/);
      const later = String(Number(delivery.headers['x-zm-request-timestamp']) + 1);
      assert.match(refusal({ ...delivery, headers: { ...delivery.headers, 'x-zm-request-timestamp': later } }), /does not match/);
    });

    it('refuses a delivery without x-zm-signature or x-zm-request-timestamp', () => {
      const delivery = zoomDelivery({ event: 'meeting.started', payload: {} });
      const { 'x-zm-signature': _s, ...noSignature } = delivery.headers;
      assert.match(refusal({ ...delivery, headers: noSignature }), /no x-zm-signature/);
      const { 'x-zm-request-timestamp': _t, ...noTimestamp } = delivery.headers;
      assert.match(refusal({ ...delivery, headers: noTimestamp }), /no x-zm-request-timestamp/);
    });

    it('refuses a malformed signature or timestamp header', () => {
      const delivery = zoomDelivery({ event: 'meeting.started', payload: {} });
      const signature = delivery.headers['x-zm-signature'] as string;
      const hex = signature.slice(3);
      for (const bad of [hex, `v1=${hex}`, `sha256=${hex}`, 'v0=', `v0=${hex.slice(2)}`, `v0=${hex}00`, `v0=${'g'.repeat(64)}`, `v0=${Buffer.from(hex, 'hex').toString('base64')}`, `${signature},${signature}`]) {
        assert.match(refusal({ ...delivery, headers: { ...delivery.headers, 'x-zm-signature': bad } }), /x-zm-signature header is malformed/, bad);
      }
      const seconds = delivery.headers['x-zm-request-timestamp'] as string;
      for (const bad of ['abc', `${seconds}.5`, `-${seconds}`, `${seconds}000`, '2026-11-29T10:00:00Z']) {
        assert.match(refusal({ ...delivery, headers: { ...delivery.headers, 'x-zm-request-timestamp': bad } }), /x-zm-request-timestamp header is malformed/, bad);
      }
    });

    it('refuses a signed delivery whose timestamp is more than 5 minutes old or ahead, and takes one within', () => {
      const now = Date.now();
      const seconds = Math.floor(now / 1000);
      const event = { event: 'meeting.started', payload: {} };
      assert.match(refusal(zoomDelivery(event, { now, timestamp: seconds - 301 })), /more than 5 minutes old/);
      assert.match(refusal(zoomDelivery(event, { now, timestamp: seconds - 3600 })), /more than 5 minutes old/);
      assert.match(refusal(zoomDelivery(event, { now, timestamp: seconds + 301 })), /ahead/);
      assert.match(refusal(zoomDelivery(event, { now, timestamp: 0 })), /old/);
      assert.equal(read(zoomDelivery(event, { now, timestamp: seconds - 299 })).event, 'meeting.started');
      assert.equal(read(zoomDelivery(event, { now, timestamp: seconds + 299 })).event, 'meeting.started');
      // The challenge is held to the same window.
      assert.match(refusal(zoomDelivery({ event: 'endpoint.url_validation', payload: { plainToken: 'x' } }, { now, timestamp: seconds - 301 })), /old/);
    });

    it('refuses every delivery of a connection without a secret', () => {
      const delivery = zoomDelivery({ event: 'meeting.started', payload: {} });
      assert.match(refusal({ ...delivery, secret: null }), /no webhook secret/);
      assert.match(refusal({ ...delivery, secret: '' }), /no webhook secret/);
    });

    it('refuses a signed body that is not a JSON object with an event name', () => {
      assert.match(refusal(zoomDelivery('event=meeting.started')), /not JSON/);
      assert.match(refusal(zoomDelivery('[1,2]')), /not a JSON object/);
      assert.match(refusal(zoomDelivery({ payload: {} })), /no event name/);
      assert.match(refusal(zoomDelivery({ event: 7 })), /no event name/);
      for (const bad of ['meeting started', '../meeting', 'meeting..started', '.meeting', 'meeting.', '1meeting.started', 'réunion.started']) {
        assert.match(refusal(zoomDelivery({ event: bad, payload: {} })), /not an event name/, bad);
        assert.equal(eventOfZoom(bad), null, bad);
      }
      // The signature is checked before the body is read.
      assert.match(refusal(zoomDelivery('not json', { secret: 'another-secret' })), /does not match/);
    });
  });

  describe('test(credentials)', () => {
    let zoom: Awaited<ReturnType<typeof fakeZoom>>;
    afterEach(async () => {
      await zoom?.close();
    });
    const provider = () => zoomProvider({ apiUrl: zoom.apiUrl, oauthUrl: zoom.oauthUrl });

    it('obtains a token with the account credentials grant (query string, HTTP Basic), then reads GET /users/me with it', async () => {
      zoom = await fakeZoom();
      const outcome = await tested(provider().test(CREDENTIALS));
      assert.deepEqual(outcome, { ok: true, detail: 'Signed in as Jill Chill', account: { id: 'KDcuGIm1QgePTO8WbOqwIQ', name: 'Jill Chill' } });
      assert.equal(zoom.seen.length, 2);
      const [token, me] = zoom.seen;
      assert.equal(token.method, 'POST');
      const url = new URL(token.url, 'http://x.invalid');
      assert.equal(url.pathname, '/oauth/token');
      assert.deepEqual([...url.searchParams], [
        ['grant_type', 'account_credentials'],
        ['account_id', ACCOUNT_ID],
      ]);
      assert.equal(token.headers.authorization, `Basic ${basic}`);
      assert.equal(token.body, '');
      assert.equal(me.method, 'GET');
      assert.equal(me.url, '/v2/users/me');
      assert.equal(me.headers.authorization, `Bearer ${ACCESS_TOKEN}`);
    });

    it('names the account by its email when it has no display name; roots with a trailing slash work', async () => {
      zoom = await fakeZoom();
      zoom.respond((req, res) => {
        if (req.url === '/v2/users/me') return zoom.json(res, 200, { id: 'u-2', display_name: '', email: 'ops@example.com' });
        return zoom.zoom(req, res);
      });
      const outcome = await tested(zoomProvider({ apiUrl: `${zoom.apiUrl}/`, oauthUrl: `${zoom.oauthUrl}/` }).test(CREDENTIALS));
      assert.deepEqual(outcome, { ok: true, detail: 'Signed in as ops@example.com', account: { id: 'u-2', name: 'ops@example.com' } });
      assert.deepEqual(
        zoom.seen.map((s) => new URL(s.url, 'http://x.invalid').pathname),
        ['/oauth/token', '/v2/users/me'],
      );
    });

    it('answers ok false with Zoom\'s reason for refused app credentials, and asks nothing more', async () => {
      zoom = await fakeZoom();
      const wrong = 'WrongClientSecretValue0987654321';
      const outcome = await tested(provider().test({ ...CREDENTIALS, client_secret: wrong }));
      assert.deepEqual(outcome, { ok: false, detail: INVALID_CLIENT });
      assert.ok(!outcome.detail.includes(wrong));
      assert.equal(zoom.seen.length, 1, 'no /users/me without a token');
      const account = await tested(provider().test({ ...CREDENTIALS, account_id: 'AnotherAccount01' }));
      assert.deepEqual(account, { ok: false, detail: 'Invalid request : Account ID is not valid.' });
    });

    it('sends an account id as one query parameter, whatever it holds', async () => {
      zoom = await fakeZoom();
      const outcome = await tested(provider().test({ ...CREDENTIALS, account_id: `${ACCOUNT_ID}&grant_type=client_credentials` }));
      assert.equal(outcome.ok, false);
      const url = new URL(zoom.seen[0].url, 'http://x.invalid');
      assert.deepEqual(url.searchParams.getAll('grant_type'), ['account_credentials']);
      assert.equal(url.searchParams.get('account_id'), `${ACCOUNT_ID}&grant_type=client_credentials`);
    });

    it('answers ok false with Zoom\'s message when the token does not read the user (401, a missing scope), scrubbing echoes', async () => {
      zoom = await fakeZoom();
      zoom.respond((req, res) => {
        if (req.url === '/v2/users/me') return zoom.json(res, 400, { code: 4711, message: 'Invalid access token, does not contain scopes:[user:read:user:admin].' });
        return zoom.zoom(req, res);
      });
      const scope = await tested(provider().test(CREDENTIALS));
      assert.equal(scope.ok, false);
      assert.equal(scope.detail, 'Zoom issued a token, but refused GET /users/me (400): Invalid access token, does not contain scopes:[user:read:user:admin].');
      zoom.respond((req, res) => {
        if (req.url === '/v2/users/me') return zoom.json(res, 401, { code: 124, message: `Invalid access token ${ACCESS_TOKEN}.` });
        if (req.url?.startsWith('/oauth/token')) return zoom.json(res, 200, { access_token: ACCESS_TOKEN, token_type: 'bearer', expires_in: 3599 });
        return zoom.zoom(req, res);
      });
      const echoed = await tested(provider().test(CREDENTIALS));
      assert.equal(echoed.ok, false);
      assert.equal(echoed.detail, 'Zoom issued a token, but refused GET /users/me (401): Invalid access token [secret].');
      zoom.respond((req, res) => {
        if (req.url?.startsWith('/oauth/token')) return zoom.json(res, 401, { reason: `Bad secret ${CLIENT_SECRET}`, error: 'invalid_client' });
        return zoom.zoom(req, res);
      });
      const secretEcho = await tested(provider().test(CREDENTIALS));
      assert.deepEqual(secretEcho, { ok: false, detail: 'Bad secret [secret]' });
    });

    it('answers ok false when the roots are not Zoom\'s (404s, a 200 without a token or a user, a redirect not followed)', async () => {
      zoom = await fakeZoom();
      const noOauth = await tested(zoomProvider({ apiUrl: zoom.apiUrl, oauthUrl: `${zoom.oauthUrl}/nowhere` }).test(CREDENTIALS));
      assert.equal(noOauth.ok, false);
      assert.match(noOauth.detail, /\/nowhere\/oauth\/token was not found \(404\): check oauthUrl/);
      const noApi = await tested(zoomProvider({ apiUrl: `${zoom.oauthUrl}/v1`, oauthUrl: zoom.oauthUrl }).test(CREDENTIALS));
      assert.equal(noApi.ok, false);
      assert.match(noApi.detail, /users\/me \(404\)/);
      zoom.respond((req, res) => {
        if (req.url?.startsWith('/oauth/token')) return zoom.json(res, 200, { ok: true });
        return zoom.zoom(req, res);
      });
      assert.match((await tested(provider().test(CREDENTIALS))).detail, /without an access token: check oauthUrl/);
      zoom.respond((req, res) => {
        if (req.url === '/v2/users/me') return zoom.json(res, 200, { status: 'ok' });
        return zoom.zoom(req, res);
      });
      assert.match((await tested(provider().test(CREDENTIALS))).detail, /without a Zoom user/);
      zoom.respond((req, res) => {
        if (req.url?.startsWith('/oauth/token')) {
          res.writeHead(307, { location: '/elsewhere/oauth/token' });
          return res.end();
        }
        return zoom.zoom(req, res);
      });
      const moved = await tested(provider().test(CREDENTIALS));
      assert.equal(moved.ok, false);
      assert.match(moved.detail, /redirect \(307\), which is not followed/);
      assert.ok(!zoom.seen.some((s) => s.url.startsWith('/elsewhere')), 'the credentials were not sent on');
    });

    it('answers ok false when Zoom cannot be reached (a closed port) or does not answer in time', async () => {
      zoom = await fakeZoom();
      const { apiUrl, oauthUrl } = zoom;
      await zoom.close();
      const closed = await tested(zoomProvider({ apiUrl, oauthUrl }).test(CREDENTIALS));
      assert.equal(closed.ok, false);
      assert.match(closed.detail, /^Zoom could not be reached: .*ECONNREFUSED/);
      zoom = await fakeZoom();
      zoom.respond(() => undefined);
      const slow = await tested(zoomProvider({ apiUrl: zoom.apiUrl, oauthUrl: zoom.oauthUrl, timeoutMs: 200 }).test(CREDENTIALS));
      assert.deepEqual(slow, { ok: false, detail: 'Zoom could not be reached: no answer within 0.2 s' });
    });

    it('sends nothing for missing credentials or ones no header can carry, and does not repeat them', async () => {
      zoom = await fakeZoom();
      assert.deepEqual(await tested(provider().test({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET })), { ok: false, detail: 'The account ID is empty.' });
      assert.deepEqual(await tested(provider().test({ ...CREDENTIALS, client_id: ' ' })), { ok: false, detail: 'The client ID is empty.' });
      assert.deepEqual(await tested(provider().test({ account_id: ACCOUNT_ID, client_id: CLIENT_ID })), { ok: false, detail: 'The client secret is empty.' });
      assert.match((await tested(provider().test({ ...CREDENTIALS, client_id: `${CLIENT_ID}:x` }))).detail, /colons/);
      assert.match((await tested(provider().test({ ...CREDENTIALS, client_secret: `${CLIENT_SECRET}\r\nX-Injected: 1` }))).detail, /characters no Zoom client secret has/);
      assert.match((await tested(provider().test({ ...CREDENTIALS, account_id: `${ACCOUNT_ID} x` }))).detail, /characters no Zoom account ID has/);
      assert.equal(zoom.seen.length, 0);
    });

    it('never answered a detail carrying the client secret, the access token or the Basic credentials (every detail above)', () => {
      assert.ok(details.length > 15, `only ${details.length} details were collected`);
      for (const detail of details) for (const secret of [CLIENT_SECRET, ACCESS_TOKEN, basic, SECRET]) assert.ok(!detail.includes(secret), detail);
    });
  });
});
