import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { createWorkspace, signUp, startTestKernel, type TestKernel } from '../../../core/testing.ts';
import { sealContext } from '../../../plugins/integrations/connections.service.ts';

/**
 * Every built-in provider's receiver through the kernel: a delivery signed exactly as the provider signs it is
 * accepted once (202, then 200 for the same delivery, one inbox row); a wrong secret, a body changed by one byte, a
 * missing signature and a stale timestamp are 401 and store nothing. Connections are stored directly with a known
 * signing secret, so no provider API is asked.
 */
const SECRET = 'receiver-test-signing-secret-0123456789';
const sendgrid = generateKeyPairSync('ec', { namedCurve: 'P-256' });

interface Delivery {
  body: string;
  headers: Record<string, string>;
}

interface Case {
  provider: string;
  /** A delivery with the given id, signed with `secret` at `at` (ms). */
  make(id: string, secret: string, at: number): Delivery;
  /** The header whose absence leaves a delivery unsigned. */
  signatureHeader: string;
  /** Whether a timestamp bounds it (and how old is too old, in ms). */
  staleAfterMs?: number;
  /** Whether the body is signed (Google's channel notifications have none). */
  signsBody: boolean;
}

const hmac = (secret: string, text: string, encoding: 'hex' | 'base64' = 'hex') => createHmac('sha256', secret).update(text).digest(encoding);

const CASES: Case[] = [
  {
    provider: 'github',
    signatureHeader: 'x-hub-signature-256',
    signsBody: true,
    make: (id, secret) => {
      const body = JSON.stringify({ action: 'opened', issue: { number: 1 } });
      return { body, headers: { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-github-delivery': id, 'x-hub-signature-256': `sha256=${hmac(secret, body)}` } };
    },
  },
  {
    provider: 'slack',
    signatureHeader: 'x-slack-signature',
    signsBody: true,
    staleAfterMs: 301_000,
    make: (id, secret, at) => {
      const body = JSON.stringify({ type: 'event_callback', event_id: id, event: { type: 'message', text: 'hello' } });
      const ts = String(Math.floor(at / 1000));
      return { body, headers: { 'content-type': 'application/json', 'x-slack-request-timestamp': ts, 'x-slack-signature': `v0=${hmac(secret, `v0:${ts}:${body}`)}` } };
    },
  },
  {
    provider: 'linear',
    signatureHeader: 'linear-signature',
    signsBody: true,
    staleAfterMs: 61_000,
    make: (id, secret, at) => {
      const body = JSON.stringify({ type: 'Issue', action: 'create', webhookTimestamp: at, data: { id: 'i1', title: 'Hello' } });
      return { body, headers: { 'content-type': 'application/json', 'linear-delivery': id, 'linear-signature': hmac(secret, body) } };
    },
  },
  {
    provider: 'shopify',
    signatureHeader: 'x-shopify-hmac-sha256',
    signsBody: true,
    make: (id, secret) => {
      const body = JSON.stringify({ id: 820982911946154500, email: 'jon@example.com' });
      return { body, headers: { 'content-type': 'application/json', 'x-shopify-topic': 'orders/create', 'x-shopify-webhook-id': id, 'x-shopify-hmac-sha256': hmac(secret, body, 'base64') } };
    },
  },
  {
    provider: 'zoom',
    signatureHeader: 'x-zm-signature',
    signsBody: true,
    staleAfterMs: 301_000,
    make: (id, secret, at) => {
      const body = JSON.stringify({ event: 'meeting.started', event_ts: at, payload: { object: { id: 1 } } });
      const ts = String(Math.floor(at / 1000));
      return { body, headers: { 'content-type': 'application/json', 'x-zm-request-timestamp': ts, 'x-zm-trackingid': id, 'x-zm-signature': `v0=${hmac(secret, `v0:${ts}:${body}`)}` } };
    },
  },
  {
    provider: 'google-calendar',
    signatureHeader: 'x-goog-channel-token',
    signsBody: false,
    make: (id, secret) => ({
      body: '',
      headers: { 'x-goog-channel-id': 'channel-1', 'x-goog-channel-token': secret, 'x-goog-resource-id': 'resource-1', 'x-goog-resource-state': 'exists', 'x-goog-message-number': id.replace(/\D/g, '') || '1', 'x-goog-resource-uri': 'https://www.googleapis.com/calendar/v3/calendars/primary/events' },
    }),
  },
  {
    provider: 'mail-bounces',
    signatureHeader: 'x-twilio-email-event-webhook-signature',
    signsBody: true,
    staleAfterMs: 301_000,
    make: (id, _secret, at) => {
      const body = JSON.stringify([{ email: `${id}@example.test`, event: 'delivered', sg_event_id: id, timestamp: Math.floor(at / 1000) }]);
      const ts = String(Math.floor(at / 1000));
      const signature = sign('sha256', Buffer.from(ts + body), sendgrid.privateKey).toString('base64');
      return { body, headers: { 'content-type': 'application/json', 'x-twilio-email-event-webhook-timestamp': ts, 'x-twilio-email-event-webhook-signature': signature } };
    },
  },
];

describe('integrations: every provider receiver, signed as the provider signs', function () {
  let t: TestKernel;
  let ws: string;

  before(async () => {
    const publicKey = sendgrid.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    t = await startTestKernel({ config: { plugins: { 'integration-mail-bounces': { options: { sendgridPublicKey: publicKey } } } } });
    ws = (await createWorkspace(t, await signUp(t))).id;
  });
  after(() => t.stop());

  const connect = async (provider: string, secret: string | null) => {
    const id = crypto.randomUUID();
    const box = t.kernel.container.resolverFor('kernel')('secrets').get();
    await t.db('integration_connections').insert({ id, workspace_id: ws, provider, name: provider, status: 'active', webhook_secret: secret && box.seal(secret, sealContext(id, 'webhook_secret')) });
    return id;
  };
  const post = (provider: string, connection: string, d: Delivery) => t.request.post(`/api/v1/integrations/${provider}/webhook/${connection}`).set(d.headers).send(d.body);
  const inbox = async (connection: string) => Number((await t.db('integration_deliveries').where({ connection_id: connection }).count({ n: '*' }))[0].n);

  for (const c of CASES) {
    const refused = [c.provider === 'mail-bounces' ? 'another key' : 'wrong secret', ...(c.signsBody ? ['changed body'] : []), 'missing signature', ...(c.staleAfterMs ? ['stale timestamp'] : [])];
    it(`${c.provider}: accepted once; ${refused.join(', ')} → 401, nothing stored`, async () => {
      const connection = await connect(c.provider, c.provider === 'mail-bounces' ? null : SECRET);
      const now = Date.now();
      const good = c.make('d1001', SECRET, now);
      const first = await post(c.provider, connection, good);
      assert.equal(first.status, 202, `${first.status} ${first.text}`);
      const again = await post(c.provider, connection, good);
      assert.equal(again.status, 200, `${again.status} ${again.text}`);
      assert.equal(await inbox(connection), 1);

      const refusals: Array<[string, Delivery]> = [];
      if (c.provider !== 'mail-bounces') refusals.push(['wrong secret', c.make('d1002', 'another-secret-entirely-0123456789', now)]);
      else {
        const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
        const d = c.make('d1002', SECRET, now);
        const ts = d.headers['x-twilio-email-event-webhook-timestamp'];
        refusals.push(['another key', { ...d, headers: { ...d.headers, 'x-twilio-email-event-webhook-signature': sign('sha256', Buffer.from(ts + d.body), other.privateKey).toString('base64') } }]);
      }
      if (c.signsBody) {
        const signed = c.make('d1003', SECRET, now);
        const i = Math.floor(signed.body.length / 2);
        refusals.push(['a byte changed', { ...signed, body: signed.body.slice(0, i) + (signed.body[i] === 'x' ? 'y' : 'x') + signed.body.slice(i + 1) }]);
      }
      const { [c.signatureHeader]: _dropped, ...unsigned } = c.make('d1004', SECRET, now).headers;
      refusals.push(['no signature', { body: c.make('d1004', SECRET, now).body, headers: unsigned }]);
      if (c.staleAfterMs) refusals.push(['stale', c.make('d1005', SECRET, now - c.staleAfterMs)]);
      for (const [what, d] of refusals) {
        const res = await post(c.provider, connection, d);
        assert.equal(res.status, 401, `${c.provider}, ${what}: ${res.status} ${res.text}`);
      }
      assert.equal(await inbox(connection), 1);
    });
  }
});
