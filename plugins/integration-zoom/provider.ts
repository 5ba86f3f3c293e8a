import { createHmac, timingSafeEqual } from 'node:crypto';
import { type Credentials, EVENT_PATTERN, headerOf, type InboundDelivery, type IntegrationProvider, type ReadDelivery, refusal, type Refusal, type TestOutcome } from '../integrations/public.ts';
import { reasonOf, UnusableCredentials, withoutSecrets, ZoomClient, ZoomUnreachable, type ZoomAnswer } from './zoom-client.ts';
import { DEFAULT_API_URL, DEFAULT_OAUTH_URL } from './schemas.ts';

export interface ZoomProviderOptions {
  /** Root of the REST API (default `https://api.zoom.us/v2`). */
  apiUrl?: string;
  /** Root of the OAuth server (default `https://zoom.us`). */
  oauthUrl?: string;
  /** How long each call to Zoom may take (default 10 s); tests shorten it. */
  timeoutMs?: number;
}

/** The events people most often hook automations to; Zoom sends many more, and every one is read the same way. */
export const ZOOM_EVENTS = [
  'meeting.created',
  'meeting.updated',
  'meeting.deleted',
  'meeting.started',
  'meeting.ended',
  'meeting.participant_joined',
  'meeting.participant_left',
  'meeting.registration_created',
  'recording.completed',
  'recording.transcript_completed',
  'recording.deleted',
  'webinar.created',
  'webinar.started',
  'webinar.ended',
  'webinar.registration_created',
  'webinar.participant_joined',
  'user.created',
  'user.updated',
  'user.deactivated',
];

/** How far a delivery's `x-zm-request-timestamp` may be from our clock, either way. */
export const TIMESTAMP_WINDOW_MS = 300_000;
/** The challenge Zoom sends when an endpoint is added or changed, and every 72 hours after. */
export const URL_VALIDATION = 'endpoint.url_validation';

const SIGNATURE = /^v0=([0-9a-fA-F]{64})$/;
const TIMESTAMP = /^[0-9]{1,12}$/;

/**
 * Checks Zoom's signature: `x-zm-signature: v0=<hex HMAC-SHA256 of "v0:{x-zm-request-timestamp}:{raw body}">`, keyed
 * by the app's Secret Token, computed over the bytes as they arrived and compared in constant time; then the signed
 * timestamp (seconds) must be within five minutes of `now`, so a captured delivery cannot be posted again later.
 */
function checkSignature(delivery: InboundDelivery): Refusal | null {
  if (!delivery.secret) return refusal('This connection has no webhook secret, so Zoom deliveries cannot be checked.');
  const given = headerOf(delivery.headers, 'x-zm-signature')?.trim();
  if (!given) return refusal('The delivery has no x-zm-signature header.');
  const match = SIGNATURE.exec(given);
  if (!match) return refusal('The x-zm-signature header is malformed: expected v0= followed by 64 hexadecimal digits.');
  const timestamp = headerOf(delivery.headers, 'x-zm-request-timestamp')?.trim();
  if (!timestamp) return refusal('The delivery has no x-zm-request-timestamp header.');
  if (!TIMESTAMP.test(timestamp)) return refusal('The x-zm-request-timestamp header is malformed: expected seconds since the epoch.');
  const expected = createHmac('sha256', delivery.secret).update(`v0:${timestamp}:`).update(delivery.rawBody).digest();
  const actual = Buffer.from(match[1], 'hex');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected))
    return refusal('The x-zm-signature signature does not match the body: this connection\'s webhook secret is not the app\'s Secret Token, or the body or timestamp was altered.');
  const skew = delivery.now - Number(timestamp) * 1000;
  if (skew > TIMESTAMP_WINDOW_MS) return refusal('The delivery\'s x-zm-request-timestamp is more than 5 minutes old.');
  if (skew < -TIMESTAMP_WINDOW_MS) return refusal('The delivery\'s x-zm-request-timestamp is more than 5 minutes ahead of this server\'s clock.');
  return null;
}

/** Zoom's event name as an event: lower case, `-` as `_` (`meeting.started`); null when the result is not an event name. */
export function eventOfZoom(name: string): string | null {
  const event = name.trim().toLowerCase().replace(/-/g, '_');
  return EVENT_PATTERN.test(event) ? event : null;
}

/**
 * Reads a Zoom delivery once its signature and timestamp checked out. The URL validation challenge is answered (the
 * plain token and its HMAC-SHA256 under the Secret Token, in hex) and not stored. Zoom sends no delivery id of its
 * own: `x-zm-trackingid` is used when it is there, otherwise there is none and duplicates are not recognized.
 */
export function readZoomDelivery(delivery: InboundDelivery): Refusal | ReadDelivery {
  const bad = checkSignature(delivery);
  if (bad) return bad;
  let body: unknown;
  try {
    body = JSON.parse(delivery.rawBody.toString('utf8'));
  } catch {
    return refusal('The delivery\'s body is not JSON.');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return refusal('The delivery\'s body is not a JSON object.');
  const name = (body as { event?: unknown }).event;
  if (typeof name !== 'string' || !name.trim()) return refusal('The delivery has no event name.');
  const tracking = headerOf(delivery.headers, 'x-zm-trackingid')?.trim();
  const deliveryId = tracking ? tracking : null;
  if (name === URL_VALIDATION) {
    const plainToken = ((body as { payload?: unknown }).payload as { plainToken?: unknown } | null | undefined)?.plainToken;
    if (typeof plainToken !== 'string' || !plainToken) return refusal('The URL validation request has no payload.plainToken.');
    const encryptedToken = createHmac('sha256', delivery.secret as string).update(plainToken).digest('hex');
    return { deliveryId, event: URL_VALIDATION, payload: body, reply: { status: 200, body: { plainToken, encryptedToken } } };
  }
  const event = eventOfZoom(name);
  if (!event) return refusal('The delivery\'s event is not an event name (dot-separated words of lower-case letters, digits and underscores).');
  return { deliveryId, event, payload: body };
}

/**
 * Tests a Server-to-Server OAuth app: a token with the account credentials grant, then `GET /users/me` with it. Never
 * throws; no detail names the client secret or the token.
 */
async function testApp(client: ZoomClient, credentials: Credentials): Promise<TestOutcome> {
  const accountId = typeof credentials.account_id === 'string' ? credentials.account_id : '';
  const clientId = typeof credentials.client_id === 'string' ? credentials.client_id : '';
  const clientSecret = typeof credentials.client_secret === 'string' ? credentials.client_secret : '';
  const secrets: string[] = [clientSecret];
  const outcome = await (async (): Promise<TestOutcome> => {
    let answer: ZoomAnswer;
    try {
      answer = await client.accountToken({ accountId, clientId, clientSecret });
    } catch (err) {
      if (err instanceof UnusableCredentials || err instanceof ZoomUnreachable) return { ok: false, detail: err.message };
      return { ok: false, detail: `Zoom could not be reached: ${err instanceof Error ? err.message : String(err)}` };
    }
    const accessToken = (answer.body as { access_token?: unknown } | undefined)?.access_token;
    if (answer.status !== 200 || typeof accessToken !== 'string' || !accessToken) {
      const said = reasonOf(answer.body);
      if (answer.status >= 300 && answer.status < 400)
        return { ok: false, detail: `${client.oauthUrl}/oauth/token answered with a redirect (${answer.status}), which is not followed: check oauthUrl.` };
      if (answer.status === 404) return { ok: false, detail: `${client.oauthUrl}/oauth/token was not found (404): check oauthUrl.` };
      if (said) return { ok: false, detail: said };
      if (answer.status === 200) return { ok: false, detail: `${client.oauthUrl}/oauth/token answered without an access token: check oauthUrl.` };
      return { ok: false, detail: `Zoom refused the app's credentials (${answer.status}).` };
    }
    secrets.push(accessToken);
    let me: ZoomAnswer;
    try {
      me = await client.request(accessToken, 'GET', '/users/me');
    } catch (err) {
      if (err instanceof UnusableCredentials || err instanceof ZoomUnreachable) return { ok: false, detail: err.message };
      return { ok: false, detail: `Zoom could not be reached: ${err instanceof Error ? err.message : String(err)}` };
    }
    if (me.status === 200) {
      const user = me.body as { id?: unknown; display_name?: unknown; email?: unknown } | undefined;
      const name = [user?.display_name, user?.email].find((v): v is string => typeof v === 'string' && v.trim() !== '')?.trim();
      if (user && typeof user.id === 'string' && user.id && name) return { ok: true, detail: `Signed in as ${name}`, account: { id: user.id, name } };
      return { ok: false, detail: `${client.apiUrl}/users/me answered without a Zoom user: check that apiUrl is the root of Zoom's REST API.` };
    }
    const said = reasonOf(me.body);
    if (me.status >= 300 && me.status < 400)
      return { ok: false, detail: `${client.apiUrl}/users/me answered with a redirect (${me.status}), which is not followed: check apiUrl.` };
    if (me.status === 404 && !said) return { ok: false, detail: `${client.apiUrl}/users/me was not found (404): check that apiUrl is the root of Zoom's REST API.` };
    return { ok: false, detail: `Zoom issued a token, but refused GET /users/me (${me.status})${said ? `: ${said}` : '.'}` };
  })();
  return { ...outcome, detail: withoutSecrets(outcome.detail, secrets) };
}

/** The Zoom provider, as the plugin adds it to `integrations.providers`; tests call it directly. */
export function zoomProvider(options: ZoomProviderOptions = {}): IntegrationProvider {
  const client = new ZoomClient({ apiUrl: options.apiUrl ?? DEFAULT_API_URL, oauthUrl: options.oauthUrl ?? DEFAULT_OAUTH_URL, timeoutMs: options.timeoutMs });
  return {
    id: 'zoom',
    name: 'Zoom',
    categories: ['video'],
    auth: {
      type: 'api_key',
      fields: [
        { name: 'account_id', label: 'Account ID', secret: false },
        { name: 'client_id', label: 'Client ID', secret: false },
        { name: 'client_secret', label: 'Client secret', secret: true },
      ],
    },
    signsWithSharedSecret: true,
    test: (credentials) => testApp(client, credentials),
    verifyWebhook: readZoomDelivery,
    events: [...ZOOM_EVENTS],
  };
}
