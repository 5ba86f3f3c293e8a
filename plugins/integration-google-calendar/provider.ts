import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { ActionFailed, type Credentials, type InboundDelivery, type IntegrationProvider, type ReadDelivery, headerOf, refusal, type Refusal, type TestOutcome, TokenRejected } from '../integrations/public.ts';
import { googleCalendarActions } from './actions.ts';
import { GoogleCalendarClient, withoutToken } from './calendar-client.ts';
import { AUTHORIZE_PARAMS, DEFAULT_API_URL, DEFAULT_AUTHORIZE_URL, DEFAULT_TOKEN_URL, GOOGLE_CALENDAR_EVENTS_KIND, SCOPES } from './schemas.ts';

export interface GoogleCalendarProviderOptions {
  /** Root of the Calendar API (default `https://www.googleapis.com/calendar/v3`). */
  apiUrl?: string;
  /** The OAuth client's id and secret from Google Cloud; without both the provider is not `configured`. */
  clientId?: string;
  clientSecret?: string;
  authorizeUrl?: string;
  tokenUrl?: string;
  /** Where deleting a connection revokes its grant (RFC 7009); none when left out. */
  revokeUrl?: string;
  /** How long a call to Google may take (default 10 s); tests shorten it. */
  timeoutMs?: number;
}

/** What push notifications become: the channel's first message, then one per change to the calendar's events. */
export const GOOGLE_CALENDAR_EVENTS = ['sync', 'events.exists', 'events.not_exists'];

const WORD = /^[a-z][a-z0-9_]*$/;
const MESSAGE_NUMBER = /^\d{1,15}$/;
/** A channel id as Google allows it; ours are set by `watch`. */
const CHANNEL_ID = /^[A-Za-z0-9\-_+/=]{1,64}$/;

/** A header's value, trimmed; undefined when it was not sent or is blank. */
function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  return headerOf(headers, name)?.trim() || undefined;
}

/** Compares two secrets in constant time, whatever their lengths (both are hashed to 32 bytes first). */
function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/**
 * Reads a push notification. Google posts no body: everything is in `X-Goog-*` headers, and what proves the sender is
 * the channel token we gave Google when opening the channel (the connection's `webhook_secret`), which it repeats in
 * `X-Goog-Channel-Token`. The token is checked first, in constant time; then the channel id and message number (the
 * delivery id is `<channel id>:<message number>`, Google numbering each channel's messages) and the resource state
 * (`sync` when the channel opens; `exists` / `not_exists` for a change) must be there. Nothing in a notification says
 * what changed: a sync reads the calendar to find out.
 */
export function readGoogleCalendarNotification(delivery: InboundDelivery): Refusal | ReadDelivery {
  if (!delivery.secret) return refusal('This connection has no webhook secret, so Google Calendar notifications cannot be checked.');
  const token = header(delivery.headers, 'x-goog-channel-token');
  if (!token) return refusal('The notification has no X-Goog-Channel-Token header: channels are opened with the connection\'s webhook secret as their token.');
  if (!sameSecret(token, delivery.secret)) return refusal('The X-Goog-Channel-Token header is not this connection\'s webhook secret: the channel was opened for another connection, or the notification is not from Google.');
  const channelId = header(delivery.headers, 'x-goog-channel-id');
  if (!channelId) return refusal('The notification has no X-Goog-Channel-ID header.');
  if (!CHANNEL_ID.test(channelId)) return refusal('The X-Goog-Channel-ID header is not a channel id (1 to 64 of A–Z a–z 0–9 - _ + / =).');
  const number = header(delivery.headers, 'x-goog-message-number');
  if (!number) return refusal('The notification has no X-Goog-Message-Number header.');
  if (!MESSAGE_NUMBER.test(number)) return refusal('The X-Goog-Message-Number header is not a whole number.');
  const state = header(delivery.headers, 'x-goog-resource-state')?.toLowerCase();
  if (!state) return refusal('The notification has no X-Goog-Resource-State header.');
  if (!WORD.test(state)) return refusal('The X-Goog-Resource-State header is not a state name (sync, exists or not_exists).');
  const expiration = header(delivery.headers, 'x-goog-channel-expiration');
  const expiresAt = expiration ? Date.parse(expiration) : NaN;
  return {
    deliveryId: `${channelId}:${Number(number)}`,
    event: state === 'sync' ? 'sync' : `events.${state}`,
    payload: {
      channel_id: channelId,
      resource_id: header(delivery.headers, 'x-goog-resource-id') ?? null,
      resource_state: state,
      resource_uri: header(delivery.headers, 'x-goog-resource-uri') ?? null,
      message_number: Number(number),
      channel_expiration: Number.isFinite(expiresAt) ? new Date(expiresAt).toISOString() : null,
    },
  };
}

/**
 * Tests an access token by reading the user's primary calendar: whose account it is (the calendar's id is the
 * user's email address), or why Google refused it. Never throws; no detail names the token.
 */
async function testToken(client: GoogleCalendarClient, credentials: Credentials): Promise<TestOutcome> {
  const token = typeof credentials.access_token === 'string' ? credentials.access_token : '';
  try {
    const calendar = await client.primaryCalendar(token);
    return { ok: true, detail: withoutToken(`Signed in as ${calendar.id}`, token), account: { id: calendar.id, name: calendar.summary } };
  } catch (err) {
    if (err instanceof TokenRejected || err instanceof ActionFailed) return { ok: false, detail: withoutToken(err.message, token) };
    return { ok: false, detail: withoutToken(`Google Calendar could not be reached: ${err instanceof Error ? err.message : String(err)}`, token) };
  }
}

/** The Google Calendar provider, as the plugin adds it to `integrations.providers`; tests call it directly. */
export function googleCalendarProvider(options: GoogleCalendarProviderOptions = {}): IntegrationProvider {
  const client = new GoogleCalendarClient({ apiUrl: options.apiUrl ?? DEFAULT_API_URL, timeoutMs: options.timeoutMs });
  return {
    id: 'google-calendar',
    name: 'Google Calendar',
    categories: ['calendar'],
    auth: {
      type: 'oauth2',
      authorizeUrl: options.authorizeUrl ?? DEFAULT_AUTHORIZE_URL,
      tokenUrl: options.tokenUrl ?? DEFAULT_TOKEN_URL,
      ...(options.revokeUrl ? { revokeUrl: options.revokeUrl } : {}),
      scopes: [...SCOPES],
      ...(options.clientId ? { clientId: options.clientId } : {}),
      ...(options.clientSecret ? { clientSecret: options.clientSecret } : {}),
      authorizeParams: { ...AUTHORIZE_PARAMS },
      // An ID token in Google's token answer (a user who once granted this client `openid`) is issued by accounts.google.com.
      issuer: 'https://accounts.google.com',
    },
    signsWithSharedSecret: true,
    test: (credentials) => testToken(client, credentials),
    verifyWebhook: readGoogleCalendarNotification,
    events: [...GOOGLE_CALENDAR_EVENTS],
    actions: googleCalendarActions(client),
    // The kind reads through this provider's connections; the sources plugin lists it when it is on.
    sources: [GOOGLE_CALENDAR_EVENTS_KIND],
  };
}

