import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Credentials, InboundDelivery, IntegrationProvider, ReadDelivery, Refusal, TestOutcome } from '../integrations/public.ts';
import { eventWord, headerOf, refusal } from '../integrations/public.ts';
import { slackActions } from './actions.ts';
import { DEFAULT_API_URL } from './schemas.ts';
import { SlackClient, SlackFailure, withoutToken } from './slack-client.ts';

export interface SlackProviderOptions {
  /** Root of the Web API (default `https://slack.com/api/`). */
  apiUrl?: string;
  /** How long a call to Slack may take (default 10 s); tests shorten it. */
  timeoutMs?: number;
  /** How many times a call without an answer is sent again (default 0). */
  retries?: number;
}

/**
 * The events people most often hook automations to. Events API deliveries are `event_callback.<event type>`, slash
 * commands `command`, interactive components `interaction.<payload type>`; any other event type Slack sends is read the
 * same way.
 */
export const SLACK_EVENTS = [
  'event_callback.message',
  'event_callback.app_mention',
  'event_callback.reaction_added',
  'event_callback.reaction_removed',
  'event_callback.member_joined_channel',
  'event_callback.channel_created',
  'event_callback.team_join',
  'event_callback.app_home_opened',
  'command',
  'interaction.block_actions',
  'interaction.view_submission',
  'interaction.shortcut',
  'interaction.message_action',
  'app_rate_limited',
];

/** Slack refuses requests whose timestamp is more than five minutes from its own clock; so do we, either way. */
export const TIMESTAMP_WINDOW_SECONDS = 300;

const SIGNATURE = /^v0=([0-9a-fA-F]{64})$/;
const TIMESTAMP = /^\d{1,15}$/;

const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);

/**
 * What Slack sent, without its `token` field: the app's verification token, which Slack still puts in every Events
 * API body, slash command and interaction payload. It is a credential of the Slack app (deprecated, but what older
 * receivers still trust), and the inbox and outbound webhooks have no use for it.
 */
function withoutVerificationToken(body: Record<string, unknown>): Record<string, unknown> {
  const { token: _token, ...rest } = body;
  return rest;
}

/**
 * Checks Slack's signature, as Slack documents it ("Verifying requests from Slack"): `X-Slack-Signature` is `v0=`
 * followed by the hex HMAC-SHA256, keyed by the app's signing secret, of `v0:{X-Slack-Request-Timestamp}:{raw body}`;
 * compared in constant time over the bytes as they arrived. Then the timestamp (seconds) must be within five minutes
 * of `now`, in the past or the future: a captured request cannot be replayed later.
 */
function checkSignature(delivery: InboundDelivery): Refusal | null {
  if (!delivery.secret) return refusal('This connection has no webhook secret, so Slack requests cannot be checked: give the app\'s signing secret as its webhook_secret.');
  const given = headerOf(delivery.headers, 'x-slack-signature')?.trim();
  if (!given) return refusal('The request has no X-Slack-Signature header: Slack signs every request it sends, so this one is not from Slack.');
  const stamp = headerOf(delivery.headers, 'x-slack-request-timestamp')?.trim();
  if (!stamp) return refusal('The request has no X-Slack-Request-Timestamp header, which Slack sends with every signed request.');
  const match = SIGNATURE.exec(given);
  if (!match) {
    if (/^v\d+=/i.test(given) && !/^v0=/i.test(given)) return refusal('The X-Slack-Signature header uses a signature version other than v0, the only one Slack documents.');
    return refusal('The X-Slack-Signature header is malformed: expected v0= followed by 64 hexadecimal digits.');
  }
  if (!TIMESTAMP.test(stamp)) return refusal('The X-Slack-Request-Timestamp header is malformed: expected whole seconds since the epoch.');
  const base = Buffer.concat([Buffer.from(`v0:${stamp}:`, 'utf8'), delivery.rawBody]);
  const expected = createHmac('sha256', delivery.secret).update(base).digest();
  const actual = Buffer.from(match[1], 'hex');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected))
    return refusal('The X-Slack-Signature signature does not match the request: the webhook secret is not the Slack app\'s signing secret, or the request was altered.');
  const age = Math.floor(delivery.now / 1000) - Number(stamp);
  if (age > TIMESTAMP_WINDOW_SECONDS)
    return refusal(`The request's X-Slack-Request-Timestamp is ${age} s old; Slack requests are accepted for ${TIMESTAMP_WINDOW_SECONDS} s (a replay, or a clock that is off).`);
  if (age < -TIMESTAMP_WINDOW_SECONDS)
    return refusal(`The request's X-Slack-Request-Timestamp is ${-age} s in the future; at most ${TIMESTAMP_WINDOW_SECONDS} s of clock difference is accepted.`);
  return null;
}

/** An Events API delivery (JSON): the URL verification challenge, an event, or Slack's rate-limit notice. */
function readEventsApi(body: Buffer): Refusal | ReadDelivery {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return refusal('The request is sent as JSON but its body is not JSON.');
  }
  if (!isObject(parsed)) return refusal('The Events API request\'s body is not a JSON object.');
  const type = parsed.type;
  if (type === 'url_verification') {
    const challenge = parsed.challenge;
    if (typeof challenge !== 'string' || !challenge) return refusal('The url_verification request has no challenge to answer.');
    return { deliveryId: null, event: 'url_verification', payload: { challenge }, reply: { status: 200, body: { challenge } } };
  }
  if (type === 'event_callback') {
    const inner = parsed.event;
    if (!isObject(inner) || typeof inner.type !== 'string') return refusal('The event_callback request has no event with a type.');
    const word = eventWord(inner.type);
    if (!word) return refusal('The event_callback request\'s event type is not an event name (it must start with a letter).');
    const id = typeof parsed.event_id === 'string' && parsed.event_id.trim() ? parsed.event_id.trim() : null;
    return { deliveryId: id, event: `event_callback.${word}`, payload: withoutVerificationToken(parsed) };
  }
  // Sent when an app's event deliveries are being dropped for going over Slack's rate limit (a notice, not an event).
  if (type === 'app_rate_limited') return { deliveryId: null, event: 'app_rate_limited', payload: withoutVerificationToken(parsed) };
  if (typeof type !== 'string') return refusal('The Events API request has no type.');
  return refusal(`The Events API request's type "${type.slice(0, 64)}" is not one this provider reads (url_verification, event_callback, app_rate_limited).`);
}

/** What Slack asks of a slash command or an interaction once taken: 200 with an empty body (no message shown). */
const SLACK_ACK = { status: 200 };

/** A form-encoded request: a slash command (its fields), or an interactive component (`payload=` holding JSON). */
function readForm(body: Buffer): Refusal | ReadDelivery {
  const fields = new URLSearchParams(body.toString('utf8'));
  const interaction = fields.get('payload');
  if (interaction !== null) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(interaction);
    } catch {
      return refusal('The interaction request\'s payload field is not JSON.');
    }
    if (!isObject(parsed) || typeof parsed.type !== 'string') return refusal('The interaction request\'s payload has no type.');
    const word = eventWord(parsed.type);
    if (!word) return refusal('The interaction request\'s payload type is not an event name (it must start with a letter).');
    return { deliveryId: null, event: `interaction.${word}`, payload: withoutVerificationToken(parsed), ack: SLACK_ACK };
  }
  if (fields.has('command')) return { deliveryId: null, event: 'command', payload: withoutVerificationToken(Object.fromEntries(fields)), ack: SLACK_ACK };
  return refusal('The form-encoded request is neither a slash command (no command field) nor an interaction (no payload field).');
}

/**
 * Reads a request from Slack once its signature and timestamp checked out: JSON bodies are the Events API
 * (`url_verification` is answered with its challenge and not stored; `event_callback` becomes
 * `event_callback.<event type>` with Slack's `event_id` as the delivery id, so Slack's retries are dropped as
 * duplicates), form-encoded ones are slash commands (`command`) and interactive components (`interaction.<type>`).
 */
export function readSlackDelivery(delivery: InboundDelivery): Refusal | ReadDelivery {
  const bad = checkSignature(delivery);
  if (bad) return bad;
  const type = (headerOf(delivery.headers, 'content-type') ?? '').toLowerCase();
  if (type.includes('application/json')) return readEventsApi(delivery.rawBody);
  if (type.includes('application/x-www-form-urlencoded')) return readForm(delivery.rawBody);
  if (!type.trim() && delivery.rawBody.toString('utf8').trimStart().startsWith('{')) return readEventsApi(delivery.rawBody);
  return refusal(
    `The request's content type (${type.trim().slice(0, 64) || 'none'}) is not one Slack sends: JSON for the Events API, form-encoded for slash commands and interactions.`,
  );
}

/** Sentences for the `auth.test` refusals people meet when connecting; any other code is given as Slack said it. */
const REFUSALS: Record<string, string> = {
  invalid_auth: 'the token is not a valid Slack token (copy the Bot User OAuth Token, xoxb-…, from the app\'s OAuth & Permissions page)',
  not_authed: 'no token reached Slack',
  token_revoked: 'the token has been revoked (the app was uninstalled or its token rotated)',
  token_expired: 'the token has expired (token rotation is on for this app)',
  account_inactive: 'the token belongs to a deactivated user or workspace',
  team_access_not_granted: 'the token has not been granted access to this workspace',
};

/** Tests a bot token with `auth.test`: which bot in which workspace, or why Slack refused it. Never throws. */
async function testToken(client: SlackClient, credentials: Credentials): Promise<TestOutcome> {
  const token = typeof credentials.bot_token === 'string' ? credentials.bot_token : '';
  try {
    const me = await client.authTest(token);
    return { ok: true, detail: withoutToken(`Signed in as ${me.user} in ${me.team}`, token), account: { id: me.teamId, name: me.team } };
  } catch (err) {
    if (err instanceof SlackFailure) {
      const code = err.details.slackError;
      if (err.kind === 'refused' && code) {
        const why = REFUSALS[code];
        return { ok: false, detail: withoutToken(`Slack refused the bot token: ${code}${why ? ` (${why})` : ''}.`, token) };
      }
      return { ok: false, detail: withoutToken(err.message, token) };
    }
    return { ok: false, detail: withoutToken(`Slack could not be reached: ${err instanceof Error ? err.message : String(err)}`, token) };
  }
}

/** The Slack provider, as the plugin adds it to `integrations.providers`; tests call it directly. */
export function slackProvider(options: SlackProviderOptions = {}): IntegrationProvider {
  const client = new SlackClient({ apiUrl: options.apiUrl ?? DEFAULT_API_URL, timeoutMs: options.timeoutMs, retries: options.retries });
  return {
    id: 'slack',
    name: 'Slack',
    categories: ['chat'],
    auth: { type: 'api_key', fields: [{ name: 'bot_token', label: 'Bot token (xoxb-…)', secret: true }] },
    signsWithSharedSecret: true,
    test: (credentials) => testToken(client, credentials),
    verifyWebhook: readSlackDelivery,
    events: [...SLACK_EVENTS],
    actions: slackActions(client),
  };
}
