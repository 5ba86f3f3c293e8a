import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Credentials, InboundDelivery, IntegrationProvider, ReadDelivery, Refusal, TestOutcome } from '../integrations/public.ts';
import { eventWord, headerOf, refusal } from '../integrations/public.ts';
import { linearActions } from './actions.ts';
import { LinearApi, LinearFailure, withoutKey } from './linear-client.ts';
import { DEFAULT_API_URL } from './schemas.ts';

export interface LinearProviderOptions {
  /** The GraphQL endpoint (default `https://api.linear.app/graphql`). */
  apiUrl?: string;
  /** How long a call to Linear may take (default 10 s); tests shorten it. */
  timeoutMs?: number;
}

/**
 * The events people most often hook automations to: `<type>.<action>` of Linear's webhook payloads, lower-cased
 * (`IssueLabel` + `create` → `issuelabel.create`). Any other type or action Linear sends is read the same way.
 */
export const LINEAR_EVENTS = [
  'issue.create',
  'issue.update',
  'issue.remove',
  'comment.create',
  'comment.update',
  'comment.remove',
  'issuelabel.create',
  'issuelabel.update',
  'reaction.create',
  'project.create',
  'project.update',
  'projectupdate.create',
  'cycle.create',
  'cycle.update',
  'issuesla.set',
];

/** Linear's own window (its SDK's `verify`): a delivery whose `webhookTimestamp` is further than this from now is refused. */
export const TIMESTAMP_WINDOW_MS = 60_000;

const SIGNATURE = /^[0-9a-fA-F]{64}$/;

/**
 * Checks Linear's signature: `Linear-Signature` is the hex HMAC-SHA256 of the raw body, keyed by the webhook's
 * signing secret, compared in constant time over the bytes as they arrived.
 *
 * `@linear/sdk/webhooks` has `LinearWebhookClient.verify(rawBody, signature)`, synchronous, but it checks the body's
 * `webhookTimestamp` against `Date.now()` rather than the delivery's `now`, answers every failure with the same
 * thrown error, and compares the hex text case-sensitively. So the provider does the same computation itself with
 * node:crypto, and the tests check that deliveries built as Linear builds them pass the SDK's `verify` as well as this
 * one: the two cannot drift apart unnoticed.
 */
function checkSignature(delivery: InboundDelivery): Refusal | null {
  if (!delivery.secret) return refusal('This connection has no webhook secret, so Linear deliveries cannot be checked: give the webhook\'s signing secret as its webhook_secret.');
  const given = headerOf(delivery.headers, 'linear-signature')?.trim();
  if (!given) return refusal('The delivery has no Linear-Signature header: Linear signs every webhook delivery, so this one is not from Linear.');
  if (!SIGNATURE.test(given)) return refusal('The Linear-Signature header is malformed: expected 64 hexadecimal digits.');
  const expected = createHmac('sha256', delivery.secret).update(delivery.rawBody).digest();
  const actual = Buffer.from(given, 'hex');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected))
    return refusal('The Linear-Signature signature does not match the body: the webhook secret is not the Linear webhook\'s signing secret, or the body was altered.');
  return null;
}

/**
 * Reads a Linear delivery once its signature checked out: the signed body's `webhookTimestamp` (milliseconds) must
 * be within a minute of `now`, either way, so a captured delivery cannot be replayed later; the event is
 * `<type>.<action>` lower-cased (`issue.create`, `comment.update`); `Linear-Delivery` is the delivery id.
 */
export function readLinearDelivery(delivery: InboundDelivery): Refusal | ReadDelivery {
  const bad = checkSignature(delivery);
  if (bad) return bad;
  let payload: unknown;
  try {
    payload = JSON.parse(delivery.rawBody.toString('utf8'));
  } catch {
    return refusal('The delivery\'s body is not JSON.');
  }
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return refusal('The delivery\'s body is not a JSON object.');
  const body = payload as { webhookTimestamp?: unknown; type?: unknown; action?: unknown };
  const stamp = body.webhookTimestamp;
  if (stamp === undefined || stamp === null) return refusal('The delivery has no webhookTimestamp, which Linear puts in every delivery it signs.');
  if (typeof stamp !== 'number' || !Number.isFinite(stamp)) return refusal('The delivery\'s webhookTimestamp is not a number of milliseconds.');
  const age = delivery.now - stamp;
  if (age > TIMESTAMP_WINDOW_MS)
    return refusal(`The delivery's webhookTimestamp is ${Math.round(age / 1000)} s old; Linear deliveries are accepted for ${TIMESTAMP_WINDOW_MS / 1000} s (a replay, or a clock that is off).`);
  if (age < -TIMESTAMP_WINDOW_MS)
    return refusal(`The delivery's webhookTimestamp is ${Math.round(-age / 1000)} s in the future; at most ${TIMESTAMP_WINDOW_MS / 1000} s of clock difference is accepted.`);
  if (typeof body.type !== 'string' || typeof body.action !== 'string') return refusal('The delivery has no type and action (Issue and create, …).');
  const type = eventWord(body.type);
  const action = eventWord(body.action);
  if (!type || !action) return refusal('The delivery\'s type or action is not an event name (it must start with a letter).');
  const id = headerOf(delivery.headers, 'linear-delivery')?.trim();
  return { deliveryId: id ? id : null, event: `${type}.${action}`, payload };
}

/** Tests an API key with `viewer`: whose it is and in which workspace, or why Linear refused it. Never throws. */
async function testKey(api: LinearApi, credentials: Credentials): Promise<TestOutcome> {
  const key = typeof credentials.api_key === 'string' ? credentials.api_key : '';
  try {
    const viewer = await api.viewer(key);
    const detail = viewer.organization ? `Signed in as ${viewer.name} in ${viewer.organization.name}` : `Signed in as ${viewer.name}`;
    return { ok: true, detail: withoutKey(detail, key), account: { id: viewer.id, name: viewer.name } };
  } catch (err) {
    if (err instanceof LinearFailure) {
      if (err.kind === 'refused' && !err.message.startsWith('Linear refused'))
        return { ok: false, detail: withoutKey(`Linear refused the API key: ${err.message}`, key) };
      return { ok: false, detail: withoutKey(err.message, key) };
    }
    return { ok: false, detail: withoutKey(`Linear could not be reached: ${err instanceof Error ? err.message : String(err)}`, key) };
  }
}

/** The Linear provider, as the plugin adds it to `integrations.providers`; tests call it directly. */
export function linearProvider(options: LinearProviderOptions = {}): IntegrationProvider {
  const api = new LinearApi({ apiUrl: options.apiUrl ?? DEFAULT_API_URL, timeoutMs: options.timeoutMs });
  return {
    id: 'linear',
    name: 'Linear',
    categories: ['issue_tracking'],
    auth: { type: 'api_key', fields: [{ name: 'api_key', label: 'Personal API key', secret: true }] },
    signsWithSharedSecret: true,
    test: (credentials) => testKey(api, credentials),
    verifyWebhook: readLinearDelivery,
    events: [...LINEAR_EVENTS],
    actions: linearActions(api),
  };
}
