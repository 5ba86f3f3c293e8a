import { createHash, createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function newSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/** `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the secret's decoded bytes. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The headers of one attempt: the id is the message's, the timestamp and signature this attempt's. */
export function signedHeaders(secret: string, id: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature(secret, id, timestamp, body),
  };
}

/** The `webhook-id` of one event for one webhook: the same on every attempt and redelivery, different per webhook. */
export function messageId(webhookId: string, eventId: number | string): string {
  return `msg_${createHash('sha256').update(`${webhookId}:${eventId}`).digest('base64url').slice(0, 27)}`;
}
