import type { IncomingHttpHeaders } from 'node:http';
import Stripe from 'stripe';

/** Stripe's own default: how old a signature's timestamp may be when the delivery arrives. */
export const TOLERANCE_SECONDS = 300;

// Set by the library when it loads; its type allows null only because it is filled in after the object is made.
const signature = Stripe.webhooks.signature!;

function firstSentence(message: string): string {
  return message.split(/(?<=\.)\s|\n/)[0].trim();
}

/**
 * Why a delivery's `Stripe-Signature` does not vouch for its exact bytes at `now` (ms), or null when it does. The
 * library checks the signatures (`t=…,v1=…`, any v1 may match); `now` is passed as its receive time, so the 300 s window
 * is measured from the caller's clock, not the library's.
 */
export function signatureRefusal(input: { rawBody: Buffer; headers: IncomingHttpHeaders; secret: string | undefined; now: number }): string | null {
  const { rawBody, headers, secret, now } = input;
  if (!secret) return 'No webhook signing secret is configured (the payments-stripe option `webhookSecret`), so no delivery can be checked.';
  const header = headers['stripe-signature'];
  if (typeof header !== 'string' || header.trim() === '') return 'The delivery has no Stripe-Signature header.';
  const verify = (tolerance: number) => signature.verifyHeader(rawBody, header, secret, tolerance, undefined, now);
  try {
    verify(TOLERANCE_SECONDS);
    return null;
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeSignatureVerificationError)) throw error;
    // A tolerance of 0 skips the time check: if the signature holds without it, the timestamp alone was refused.
    try {
      verify(0);
    } catch {
      return `The Stripe-Signature header does not vouch for this body: ${firstSentence(error.message)}`;
    }
    return `The Stripe-Signature timestamp is more than ${TOLERANCE_SECONDS} s before the delivery arrived: a replayed delivery, or a clock far off.`;
  }
}
