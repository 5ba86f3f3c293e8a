import { timingSafeEqual } from 'node:crypto';
import { signature } from '../webhooks/public.ts';
import { AutomationErrors } from './errors.ts';

/** How far a signed post's `webhook-timestamp` may be from now: a captured post cannot be replayed later. */
export const TOLERANCE_SECONDS = 5 * 60;

/** A post whose signature checked out: its `webhook-id`, and its timestamp in unix seconds. */
export interface SignedPost {
  id: string;
  seconds: number;
}

const HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/**
 * Checks a Standard Webhooks signature over the exact body bytes; answers the signed post, or undefined for an unsigned
 * one. An unsigned post (none of the three headers) is accepted: the token in the URL is the credential, as in Zapier-
 * or Airtable-style hooks, and a sender that cannot sign can still use the hook. A post that carries any of the headers
 * must carry all three and check out.
 */
export function checkSignature(secret: string, headers: Record<string, string | string[] | undefined>, rawBody: string, now = Date.now()): SignedPost | undefined {
  const [id, timestamp, signatures] = HEADERS.map((h) => headers[h]);
  if (id === undefined && timestamp === undefined && signatures === undefined) return undefined;
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') throw AutomationErrors.bad_signature('A signed post carries webhook-id, webhook-timestamp and webhook-signature, once each.');
  const seconds = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : NaN;
  if (!(Math.abs(now / 1000 - seconds) <= TOLERANCE_SECONDS)) throw AutomationErrors.bad_signature(`The webhook-timestamp is more than ${TOLERANCE_SECONDS} seconds from now.`);
  const expected = Buffer.from(signature(secret, id, seconds, rawBody));
  // The header may list several signatures (a secret being rotated on the sender's side): one that matches is enough.
  const matches = signatures.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw AutomationErrors.bad_signature('The webhook-signature does not match the body signed with this hook\'s secret.');
  return { id, seconds };
}
