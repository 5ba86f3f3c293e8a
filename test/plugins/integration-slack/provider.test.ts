import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ActionFailed, EVENT_PATTERN, refused, type InboundDelivery, type ReadDelivery, type Refusal } from '../../../plugins/integrations/public.ts';
import { readSlackDelivery, slackProvider } from '../../../plugins/integration-slack/provider.ts';
import { SlackClient, SlackFailure } from '../../../plugins/integration-slack/slack-client.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5-connection';
const TOKEN = 'xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy';
const NOW = Date.UTC(2025, 4, 14, 9, 30, 0, 250);
const NOW_S = Math.floor(NOW / 1000);

/**
 * Signs as Slack documents it, written out independently of the provider: `v0=` + hex HMAC-SHA256 of
 * `v0:<timestamp>:<body>` keyed by the signing secret. Checked below against Slack's own worked example.
 */
function slackSignature(secret: string, timestamp: string, body: string | Buffer): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:`).update(body).digest('hex')}`;
}

function slackRequest(body: string, opts: { contentType?: string; secret?: string; timestamp?: number; now?: number } = {}): InboundDelivery {
  const timestamp = String(opts.timestamp ?? NOW_S - 2);
  return {
    rawBody: Buffer.from(body, 'utf8'),
    headers: {
      'content-type': opts.contentType ?? 'application/json',
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': slackSignature(opts.secret ?? SECRET, timestamp, body),
    },
    secret: SECRET,
    now: opts.now ?? NOW,
  };
}

const eventsApi = (payload: unknown, opts: Parameters<typeof slackRequest>[1] = {}) => slackRequest(JSON.stringify(payload), opts);
const form = (fields: Record<string, string>, opts: Parameters<typeof slackRequest>[1] = {}) =>
  slackRequest(new URLSearchParams(fields).toString(), { contentType: 'application/x-www-form-urlencoded', ...opts });

function read(delivery: InboundDelivery): ReadDelivery {
  const outcome = readSlackDelivery(delivery);
  if (refused(outcome)) assert.fail(`refused: ${outcome.refused}`);
  assert.match(outcome.event, EVENT_PATTERN);
  return outcome;
}

function refusal(delivery: InboundDelivery): string {
  const outcome = readSlackDelivery(delivery);
  assert.ok(refused(outcome), `expected a refusal, got ${JSON.stringify(outcome)}`);
  const text = (outcome as Refusal).refused;
  assert.equal(typeof text, 'string');
  assert.ok(text.length > 10, text);
  assert.ok(!text.includes(SECRET), text);
  return text;
}

const MESSAGE_EVENT = {
  token: 'XXYYZZ-verification-token',
  team_id: 'T123ABC456',
  api_app_id: 'A123ABC456',
  event: { type: 'message', channel: 'C123ABC456', user: 'U123ABC456', text: 'Ünïcødé and emoji 🎉 survive', ts: '1355517523.000005', event_ts: '1355517523.000005', channel_type: 'channel' },
  type: 'event_callback',
  event_id: 'Ev123ABC456',
  event_time: 1355517523,
  authorizations: [{ team_id: 'T123ABC456', user_id: 'U123ABC456', is_bot: true }],
};

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  form: Record<string, string>;
}

/**
 * A loopback server that speaks Slack's Web API under `/api/`: form-encoded POSTs, the token as a Bearer header,
 * HTTP 200 with `{ ok: false, error }` for refusals. It records what it was sent.
 */
async function fakeSlack(): Promise<{ url: string; seen: Seen[]; respond: (handler: http.RequestListener) => void; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const json = (res: http.ServerResponse, body: unknown, status = 200) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  let handler: http.RequestListener = (req, res) => {
    const fields = seen[seen.length - 1].form;
    if (req.method !== 'POST') return json(res, { ok: false, error: 'method_not_supported_for_channel_type' });
    const auth = req.headers.authorization;
    if (!auth) return json(res, { ok: false, error: 'not_authed' });
    if (auth !== `Bearer ${TOKEN}`) return json(res, { ok: false, error: 'invalid_auth' });
    if (req.url === '/api/auth.test')
      return json(res, { ok: true, url: 'https://acme-corp.slack.com/', team: 'Acme Corp', user: 'tessera_bot', team_id: 'T0ACME1234', user_id: 'U0BOT56789', bot_id: 'B0BOT56789', is_enterprise_install: false });
    if (req.url === '/api/chat.postMessage') {
      if (fields.channel !== 'C0GENERAL1') return json(res, { ok: false, error: 'channel_not_found' });
      return json(res, { ok: true, channel: 'C0GENERAL1', ts: '1747215000.123456', message: { type: 'message', text: fields.text, user: 'U0BOT56789', bot_id: 'B0BOT56789', ts: '1747215000.123456' } });
    }
    return json(res, { ok: false, error: 'unknown_method' }, 404);
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const formFields = /x-www-form-urlencoded/.test(req.headers['content-type'] ?? '') ? Object.fromEntries(new URLSearchParams(text)) : {};
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, form: formFields });
      handler(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/`,
    seen,
    respond: (h) => void (handler = h),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('integration-slack provider', () => {
  storageIndependent();

  it('declares Slack: id, name, category, a bot token field, signatures with a shared secret, its events', () => {
    const provider = slackProvider();
    assert.equal(provider.id, 'slack');
    assert.equal(provider.name, 'Slack');
    assert.deepEqual(provider.categories, ['chat']);
    assert.deepEqual(provider.auth, { type: 'api_key', fields: [{ name: 'bot_token', label: 'Bot token (xoxb-…)', secret: true }] });
    assert.equal(provider.signsWithSharedSecret, true);
    for (const event of ['event_callback.message', 'event_callback.app_mention', 'command', 'interaction.block_actions']) assert.ok(provider.events?.includes(event), event);
    for (const event of provider.events ?? []) assert.match(event, EVENT_PATTERN);
    assert.equal(provider.verifyWebhook, readSlackDelivery);
  });

  describe('verifyWebhook', () => {
    it("accepts Slack's own worked example (the signing secret, timestamp, body and signature of Slack's documentation)", () => {
      const secret = '8f742231b10e8888abcd99yyyzzz85a5';
      const timestamp = '1531420618';
      const body =
        'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
      const signature = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';
      // The test's signer agrees with Slack's example, so the fixtures below are signed as Slack signs.
      assert.equal(slackSignature(secret, timestamp, body), signature);
      const got = read({
        rawBody: Buffer.from(body),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': timestamp, 'x-slack-signature': signature },
        secret,
        now: 1531420618 * 1000 + 4_000,
      });
      assert.equal(got.event, 'command');
      assert.equal(got.deliveryId, null);
      assert.deepEqual(got.ack, { status: 200 }, 'Slack wants a 200 with an empty body for a command');
      const payload = got.payload as Record<string, string>;
      assert.equal(payload.command, '/webhook-collect');
      assert.equal(payload.response_url, 'https://hooks.slack.com/commands/T1DC2JH3J/397700885554/96rGlfmibIGlgcZRskXaIFfN');
      assert.equal(payload.text, '');
      assert.equal(payload.token, undefined, 'the verification token is not kept');
    });

    it('answers the url_verification challenge itself (nothing to store)', () => {
      const got = read(eventsApi({ token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P', type: 'url_verification' }));
      assert.equal(got.event, 'url_verification');
      assert.deepEqual(got.reply, { status: 200, body: { challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' } });
      assert.equal(got.deliveryId, null);
    });

    it('reads an event_callback as event_callback.<type>, with event_id as the delivery id and the body as payload', () => {
      const got = read(eventsApi(MESSAGE_EVENT));
      assert.equal(got.event, 'event_callback.message');
      assert.equal(got.deliveryId, 'Ev123ABC456');
      assert.equal(got.reply, undefined);
      const { token: _token, ...rest } = MESSAGE_EVENT;
      assert.deepEqual(got.payload, rest);
      const mention = read(eventsApi({ ...MESSAGE_EVENT, event_id: 'Ev0MENTION1', event: { type: 'app_mention', user: 'U1', text: '<@U0BOT56789> hi', ts: '1.2', channel: 'C1' } }));
      assert.equal(mention.event, 'event_callback.app_mention');
      assert.equal(mention.deliveryId, 'Ev0MENTION1');
      // Odd characters in a type become underscores; the name is lower case.
      assert.equal(read(eventsApi({ ...MESSAGE_EVENT, event: { type: 'Reaction-Added' } })).event, 'event_callback.reaction_added');
    });

    it("reads Slack's app_rate_limited notice", () => {
      const got = read(eventsApi({ token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', type: 'app_rate_limited', team_id: 'T123456', minute_rate_limited: 1518467820, api_app_id: 'A123456' }));
      assert.equal(got.event, 'app_rate_limited');
      assert.deepEqual(got.payload, { type: 'app_rate_limited', team_id: 'T123456', minute_rate_limited: 1518467820, api_app_id: 'A123456' });
    });

    it('reads a slash command (form-encoded) as command, its fields as the payload', () => {
      const fields = {
        token: 'gIkuvaNzQIHg97ATvDxqgjtO',
        team_id: 'T0001',
        team_domain: 'example',
        channel_id: 'C2147483705',
        channel_name: 'test',
        user_id: 'U2147483697',
        user_name: 'Steve',
        command: '/weather',
        text: '94070 & more: ünïcødé + spaces',
        response_url: 'https://hooks.slack.com/commands/1234/5678',
        trigger_id: '13345224609.738474920.8088930838d88f008e0',
        api_app_id: 'A123456',
      };
      const got = read(form(fields));
      assert.equal(got.event, 'command');
      assert.equal(got.deliveryId, null);
      const { token: _token, ...rest } = fields;
      assert.deepEqual(got.payload, rest);
    });

    it('reads an interactive component (payload= JSON) as interaction.<type>', () => {
      const payload = { type: 'block_actions', token: 'gIkuvaNzQIHg97ATvDxqgjtO', user: { id: 'U1', username: 'ana' }, actions: [{ action_id: 'approve', value: 'rec_42' }], trigger_id: '1.2.3' };
      const got = read(form({ payload: JSON.stringify(payload) }));
      assert.equal(got.event, 'interaction.block_actions');
      assert.equal(got.deliveryId, null);
      const { token: _token, ...rest } = payload;
      assert.deepEqual(got.payload, rest);
      assert.equal(read(form({ payload: JSON.stringify({ type: 'view_submission', view: { id: 'V1' } }) })).event, 'interaction.view_submission');
    });

    it('accepts a timestamp exactly 300 s old or ahead, and refuses 301 s either way', () => {
      assert.equal(read(eventsApi(MESSAGE_EVENT, { timestamp: NOW_S - 300 })).event, 'event_callback.message');
      assert.equal(read(eventsApi(MESSAGE_EVENT, { timestamp: NOW_S + 300 })).event, 'event_callback.message');
      assert.match(refusal(eventsApi(MESSAGE_EVENT, { timestamp: NOW_S - 301 })), /301 s old/);
      assert.match(refusal(eventsApi(MESSAGE_EVENT, { timestamp: NOW_S + 301 })), /301 s in the future/);
      assert.match(refusal(eventsApi(MESSAGE_EVENT, { timestamp: NOW_S - 86_400 })), /86400 s old/);
    });

    it('refuses a request signed with another secret', () => {
      assert.match(refusal(eventsApi(MESSAGE_EVENT, { secret: 'someone-elses-signing-secret' })), /does not match/);
    });

    it('refuses a request whose body, or timestamp, changed after signing', () => {
      const delivery = eventsApi(MESSAGE_EVENT);
      const changed = Buffer.from(delivery.rawBody);
      changed[changed.indexOf('C123ABC456')] = 'D'.charCodeAt(0);
      assert.notDeepEqual(changed, delivery.rawBody);
      assert.match(refusal({ ...delivery, rawBody: changed }), /does not match/);
      assert.match(refusal({ ...delivery, rawBody: delivery.rawBody.subarray(0, delivery.rawBody.length - 1) }), /does not match/);
      // The timestamp is signed too: moving it (to slip a replay into the window) breaks the signature.
      const moved = { ...delivery.headers, 'x-slack-request-timestamp': String(NOW_S) };
      assert.match(refusal({ ...delivery, headers: moved }), /does not match/);
    });

    it('refuses a request without X-Slack-Signature or X-Slack-Request-Timestamp', () => {
      const delivery = eventsApi(MESSAGE_EVENT);
      const { 'x-slack-signature': _s, ...unsigned } = delivery.headers;
      assert.match(refusal({ ...delivery, headers: unsigned }), /no X-Slack-Signature/);
      const { 'x-slack-request-timestamp': _t, ...undated } = delivery.headers;
      assert.match(refusal({ ...delivery, headers: undated }), /no X-Slack-Request-Timestamp/);
    });

    it('refuses malformed signature and timestamp headers', () => {
      const delivery = eventsApi(MESSAGE_EVENT);
      const signature = delivery.headers['x-slack-signature'] as string;
      for (const bad of ['v0=', 'v0=xyz', `v0=${'g'.repeat(64)}`, signature.slice(3), `${signature}00`, `sha256=${signature.slice(3)}`, 'garbage']) {
        assert.match(refusal({ ...delivery, headers: { ...delivery.headers, 'x-slack-signature': bad } }), /malformed/, bad);
      }
      assert.match(refusal({ ...delivery, headers: { ...delivery.headers, 'x-slack-signature': `v1=${signature.slice(3)}` } }), /other than v0/);
      for (const bad of ['1.5e9', '-1', 'yesterday', `${NOW_S}.5`]) {
        assert.match(refusal({ ...delivery, headers: { ...delivery.headers, 'x-slack-request-timestamp': bad } }), /Timestamp header is malformed/, bad);
      }
    });

    it('refuses every request of a connection without a secret', () => {
      const delivery = eventsApi(MESSAGE_EVENT);
      assert.match(refusal({ ...delivery, secret: null }), /no webhook secret/);
      assert.match(refusal({ ...delivery, secret: '' }), /no webhook secret/);
    });

    it('refuses signed bodies it cannot read, with a sentence', () => {
      assert.match(refusal(slackRequest('not json')), /not JSON/);
      assert.match(refusal(eventsApi(['a list'])), /not a JSON object/);
      assert.match(refusal(eventsApi({ type: 'block_actions' })), /type "block_actions" is not one/);
      assert.match(refusal(eventsApi({ challenge: 'x' })), /no type/);
      assert.match(refusal(eventsApi({ type: 'url_verification' })), /no challenge/);
      assert.match(refusal(eventsApi({ type: 'event_callback', event_id: 'Ev1' })), /no event with a type/);
      assert.match(refusal(eventsApi({ type: 'event_callback', event: { type: '1st' } })), /not an event name/);
      assert.match(refusal(form({ text: 'hello' })), /neither a slash command/);
      assert.match(refusal(form({ payload: '{not json' })), /payload field is not JSON/);
      assert.match(refusal(form({ payload: JSON.stringify({ actions: [] }) })), /payload has no type/);
      assert.match(refusal(slackRequest('<xml/>', { contentType: 'text/xml' })), /content type \(text\/xml\) is not one Slack sends/);
    });
  });

  describe('test(credentials)', () => {
    let slack: Awaited<ReturnType<typeof fakeSlack>>;
    afterEach(async () => {
      await slack?.close();
    });

    it('signs in with auth.test, sending the token as Slack asks (Authorization: Bearer, a form-encoded POST)', async () => {
      slack = await fakeSlack();
      const outcome = await slackProvider({ apiUrl: slack.url, retries: 0 }).test({ bot_token: TOKEN });
      assert.deepEqual(outcome, { ok: true, detail: 'Signed in as tessera_bot in Acme Corp', account: { id: 'T0ACME1234', name: 'Acme Corp' } });
      assert.equal(slack.seen.length, 1);
      const [request] = slack.seen;
      assert.equal(request.method, 'POST');
      assert.equal(request.url, '/api/auth.test');
      assert.equal(request.headers.authorization, `Bearer ${TOKEN}`);
      assert.match(request.headers['content-type'] ?? '', /application\/x-www-form-urlencoded/);
      // The token travels in the header only, not in the body as well.
      assert.equal(request.form.token, undefined);
    });

    it('talks to an apiUrl given without its trailing slash', async () => {
      slack = await fakeSlack();
      const outcome = await slackProvider({ apiUrl: slack.url.replace(/\/$/, ''), retries: 0 }).test({ bot_token: TOKEN });
      assert.equal(outcome.ok, true, outcome.detail);
      assert.equal(slack.seen[0].url, '/api/auth.test');
    });

    it("answers ok false with Slack's error for a token it refuses (invalid_auth), never with the token", async () => {
      slack = await fakeSlack();
      const wrong = 'xoxb-00000000000-00000000000-WrongTokenValue0000000';
      const outcome = await slackProvider({ apiUrl: slack.url, retries: 0 }).test({ bot_token: wrong });
      assert.equal(outcome.ok, false);
      assert.match(outcome.detail, /^Slack refused the bot token: invalid_auth/);
      assert.equal(outcome.account, undefined);
      assert.equal(slack.seen[0].headers.authorization, `Bearer ${wrong}`);
      assert.ok(!outcome.detail.includes(wrong));
    });

    it('gives any other refusal code as Slack said it', async () => {
      slack = await fakeSlack();
      slack.respond((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: false, error: 'ekm_access_denied' }));
      });
      const outcome = await slackProvider({ apiUrl: slack.url, retries: 0 }).test({ bot_token: TOKEN });
      assert.deepEqual(outcome, { ok: false, detail: 'Slack refused the bot token: ekm_access_denied.' });
    });

    it('answers ok false when apiUrl is not Slack (HTTP 404, or a 200 that is not a Web API answer)', async () => {
      slack = await fakeSlack();
      slack.respond((_req, res) => {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<html>Not found</html>');
      });
      const missing = await slackProvider({ apiUrl: slack.url, retries: 0 }).test({ bot_token: TOKEN });
      assert.equal(missing.ok, false);
      assert.match(missing.detail, /HTTP 404.*apiUrl/);
      slack.respond((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>Sign in to Slack</html>');
      });
      const html = await slackProvider({ apiUrl: slack.url, retries: 0 }).test({ bot_token: TOKEN });
      assert.equal(html.ok, false);
      assert.match(html.detail, /without a Slack API answer/);
      slack.respond((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true }));
      });
      const empty = await slackProvider({ apiUrl: slack.url, retries: 0 }).test({ bot_token: TOKEN });
      assert.equal(empty.ok, false);
      assert.match(empty.detail, /without a Slack user and workspace/);
    });

    it('answers ok false when Slack rate limits the call, without waiting it out', async () => {
      slack = await fakeSlack();
      slack.respond((_req, res) => {
        res.writeHead(429, { 'retry-after': '30', 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
      });
      const started = Date.now();
      const outcome = await slackProvider({ apiUrl: slack.url, retries: 0 }).test({ bot_token: TOKEN });
      assert.deepEqual(outcome, { ok: false, detail: 'Slack is rate limiting these calls; it asks to wait 30 s.' });
      assert.ok(Date.now() - started < 5000);
    });

    it('answers ok false when Slack cannot be reached (a closed port)', async () => {
      slack = await fakeSlack();
      const url = slack.url;
      await slack.close();
      const outcome = await slackProvider({ apiUrl: url, retries: 0 }).test({ bot_token: TOKEN });
      assert.equal(outcome.ok, false);
      assert.match(outcome.detail, /^Slack could not be reached: .*ECONNREFUSED/);
      assert.ok(!outcome.detail.includes(TOKEN));
    });

    it('answers ok false when Slack does not answer in time', async () => {
      slack = await fakeSlack();
      slack.respond(() => undefined);
      const started = Date.now();
      const outcome = await slackProvider({ apiUrl: slack.url, timeoutMs: 200, retries: 0 }).test({ bot_token: TOKEN });
      assert.deepEqual(outcome, { ok: false, detail: 'Slack could not be reached: no answer within 0.2 s' });
      assert.ok(Date.now() - started < 5000);
    });

    it('does not follow a redirect (the token would go with it)', async () => {
      slack = await fakeSlack();
      slack.respond((_req, res) => {
        res.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' });
        res.end();
      });
      const outcome = await slackProvider({ apiUrl: slack.url, retries: 0 }).test({ bot_token: TOKEN });
      assert.equal(outcome.ok, false);
      assert.match(outcome.detail, /^Slack could not be reached: .*redirect/);
      assert.equal(slack.seen.length, 1);
    });

    it('sends no request for a missing token or one no header can carry, and does not repeat it', async () => {
      slack = await fakeSlack();
      const provider = slackProvider({ apiUrl: slack.url, retries: 0 });
      assert.deepEqual(await provider.test({}), { ok: false, detail: 'The bot token is empty.' });
      const broken = `${TOKEN}\r\nX-Injected: 1`;
      const outcome = await provider.test({ bot_token: broken });
      assert.equal(outcome.ok, false);
      assert.match(outcome.detail, /characters no Slack token has/);
      assert.ok(!outcome.detail.includes(TOKEN));
      assert.equal(slack.seen.length, 0);
    });

    it('scrubs the token from anything Slack would echo back', async () => {
      slack = await fakeSlack();
      slack.respond((_req, res) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: false, error: `bad token ${TOKEN}` }));
      });
      const outcome = await slackProvider({ apiUrl: slack.url, retries: 0 }).test({ bot_token: TOKEN });
      assert.equal(outcome.ok, false);
      assert.equal(outcome.detail, 'Slack answered HTTP 500.');
    });
  });

  describe('SlackClient.postMessage', () => {
    let slack: Awaited<ReturnType<typeof fakeSlack>>;
    afterEach(async () => {
      await slack?.close();
    });

    it('is the slack_post_message action: posted with the connection\'s bot token, a refusal an ActionFailed without it', async () => {
      slack = await fakeSlack();
      const [action] = slackProvider({ apiUrl: slack.url, retries: 0 }).actions!;
      assert.equal(action.type, 'slack_post_message');
      assert.deepEqual(await action.run({ credentials: { bot_token: TOKEN }, config: { channel: 'C0GENERAL1', text: 'Deal won' } }), { channel: 'C0GENERAL1', ts: '1747215000.123456' });
      assert.equal(slack.seen[0].form.text, 'Deal won');
      const refused = await action.run({ credentials: { bot_token: TOKEN }, config: { channel: 'C0NOWHERE0', text: 'x' } }).then(() => assert.fail('posted'), (err: unknown) => err);
      assert.ok(refused instanceof ActionFailed);
      assert.equal((refused as Error).message, 'Slack answered channel_not_found.');
    });

    it('posts with chat.postMessage: the channel and text in the form, the token as a Bearer header', async () => {
      slack = await fakeSlack();
      const client = new SlackClient({ apiUrl: slack.url, retries: 0 });
      const posted = await client.postMessage(TOKEN, 'C0GENERAL1', 'Record *42* changed: ünïcødé & <b>');
      assert.deepEqual(posted, { channel: 'C0GENERAL1', ts: '1747215000.123456' });
      const [request] = slack.seen;
      assert.equal(request.url, '/api/chat.postMessage');
      assert.equal(request.headers.authorization, `Bearer ${TOKEN}`);
      assert.equal(request.form.channel, 'C0GENERAL1');
      assert.equal(request.form.text, 'Record *42* changed: ünïcødé & <b>');
      assert.equal(request.form.token, undefined);
    });

    it("throws a SlackFailure with Slack's code for a refusal, and for a bad token, never naming the token", async () => {
      slack = await fakeSlack();
      const client = new SlackClient({ apiUrl: slack.url, retries: 0 });
      const missing = await client.postMessage(TOKEN, 'C0NOWHERE0', 'hello').then(
        () => assert.fail('posted'),
        (err: unknown) => err,
      );
      assert.ok(missing instanceof SlackFailure);
      assert.equal(missing.kind, 'refused');
      assert.equal(missing.details.slackError, 'channel_not_found');
      assert.equal(missing.message, 'Slack answered channel_not_found.');
      const wrong = 'xoxb-1-2-NotTheRightOne';
      const unauthorised = await client.postMessage(wrong, 'C0GENERAL1', 'hello').then(
        () => assert.fail('posted'),
        (err: unknown) => err,
      );
      assert.ok(unauthorised instanceof SlackFailure);
      assert.equal(unauthorised.details.slackError, 'invalid_auth');
      assert.ok(!unauthorised.message.includes(wrong));
      assert.ok(!String(unauthorised.stack).includes(wrong));
    });

    it('throws an unreachable SlackFailure, without the token, when Slack cannot be reached', async () => {
      slack = await fakeSlack();
      const url = slack.url;
      await slack.close();
      const err = await new SlackClient({ apiUrl: url, retries: 0 }).postMessage(TOKEN, 'C0GENERAL1', 'hello').then(
        () => assert.fail('posted'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof SlackFailure);
      assert.equal(err.kind, 'unreachable');
      assert.match(err.message, /ECONNREFUSED/);
      assert.ok(!err.message.includes(TOKEN));
    });
  });
});
