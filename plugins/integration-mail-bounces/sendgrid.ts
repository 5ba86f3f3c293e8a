import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { InboundDelivery, ReadDelivery, Refusal } from '../integrations/public.ts';
import { headerOf, refusal } from '../integrations/public.ts';
import { addressesOf, SENDGRID_EVENTS, type SendgridBatch } from './payloads.ts';

export const SIGNATURE_HEADER = 'x-twilio-email-event-webhook-signature';
export const TIMESTAMP_HEADER = 'x-twilio-email-event-webhook-timestamp';
/** How far a post's signed timestamp may be from our clock, either way. */
export const TIMESTAMP_WINDOW_MS = 300_000;

const TIMESTAMP = /^[0-9]{1,12}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The verification key as SendGrid shows it (base64 of a DER SubjectPublicKeyInfo; a PEM block is taken too), read as
 * an ECDSA P-256 public key. Throws with a sentence when it is not one.
 */
export function sendgridKey(text: string): KeyObject {
  const base64 = text
    .replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '')
    .replace(/\s+/g, '');
  if (!base64 || !BASE64.test(base64)) throw new Error('sendgridPublicKey is not base64.');
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
  } catch {
    throw new Error('sendgridPublicKey is not a public key (base64 of a DER SubjectPublicKeyInfo, as SendGrid shows it).');
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
    throw new Error('sendgridPublicKey is not an ECDSA P-256 key, the kind SendGrid signs its events with.');
  return key;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Picks the bounces and the spam reports out of a posted batch. */
export function readSendgridEvents(events: unknown[]): Pick<SendgridBatch, 'bounces' | 'complaints'> {
  const bounced: unknown[] = [];
  const complained: unknown[] = [];
  for (const item of events) {
    if (!item || typeof item !== 'object' || Array.isArray(item)) continue;
    const e = item as { email?: unknown; event?: unknown; type?: unknown; reason?: unknown };
    const event = str(e.event);
    // A `bounce` of type `blocked` is a refusal of that message (content, reputation), not of the address.
    if (event === 'bounce' && str(e.type) !== 'blocked') bounced.push(e.email);
    // SendGrid drops mail to an address on its bounce list without trying it again.
    else if (event === 'dropped' && str(e.reason) === 'Bounced Address') bounced.push(e.email);
    else if (event === 'spamreport') complained.push(e.email);
  }
  return { bounces: addressesOf(bounced), complaints: addressesOf(complained) };
}

/**
 * A SendGrid Event Webhook post with signed events: `X-Twilio-Email-Event-Webhook-Signature` is the base64 of an
 * ECDSA P-256 / SHA-256 signature (DER) over the `X-Twilio-Email-Event-Webhook-Timestamp` header's text followed by
 * the raw body, checked with the account's verification key before anything is parsed; the timestamp must then be
 * within 5 minutes of `now`. SendGrid gives a post no id of its own: the delivery id is the SHA-256 of the body, so a
 * retried post (the same bytes) is recognized.
 */
export function readSendgrid(delivery: InboundDelivery, key: KeyObject | null): Refusal | ReadDelivery {
  if (!key)
    return refusal('SendGrid deliveries cannot be checked: this instance has no sendgridPublicKey (the verification key of SendGrid\'s signed Event Webhook).');
  const signature = headerOf(delivery.headers, SIGNATURE_HEADER)?.trim();
  if (!signature) return refusal('The SendGrid delivery has no X-Twilio-Email-Event-Webhook-Signature header: turn on signed events for the Event Webhook.');
  const timestamp = headerOf(delivery.headers, TIMESTAMP_HEADER)?.trim();
  if (!timestamp) return refusal('The SendGrid delivery has no X-Twilio-Email-Event-Webhook-Timestamp header.');
  if (!TIMESTAMP.test(timestamp)) return refusal('The X-Twilio-Email-Event-Webhook-Timestamp header is malformed: expected seconds since the epoch.');
  if (!BASE64.test(signature) || signature.length > 512) return refusal('The X-Twilio-Email-Event-Webhook-Signature header is not base64.');
  let good = false;
  try {
    good = verify('sha256', Buffer.concat([Buffer.from(timestamp, 'utf8'), delivery.rawBody]), key, Buffer.from(signature, 'base64'));
  } catch {
    good = false;
  }
  if (!good)
    return refusal('The SendGrid signature does not match the body: sendgridPublicKey is not this SendGrid account\'s verification key, or the body or timestamp was altered.');
  const skew = delivery.now - Number(timestamp) * 1000;
  if (skew > TIMESTAMP_WINDOW_MS) return refusal('The SendGrid delivery\'s timestamp is more than 5 minutes old.');
  if (skew < -TIMESTAMP_WINDOW_MS) return refusal('The SendGrid delivery\'s timestamp is more than 5 minutes ahead of this server\'s clock.');
  let body: unknown;
  try {
    body = JSON.parse(delivery.rawBody.toString('utf8'));
  } catch {
    return refusal('The SendGrid delivery\'s body is not JSON.');
  }
  if (!Array.isArray(body)) return refusal('The SendGrid delivery\'s body is not a JSON array of events.');
  const payload: SendgridBatch = { kind: 'batch', source: 'sendgrid', ...readSendgridEvents(body), raw: body };
  return { deliveryId: createHash('sha256').update(delivery.rawBody).digest('hex'), event: SENDGRID_EVENTS, payload };
}
