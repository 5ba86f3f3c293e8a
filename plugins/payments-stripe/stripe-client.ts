import Stripe from 'stripe';
import { PaymentDeclined, ProviderUnavailable } from '../billing/public.ts';

export interface StripeClientOptions {
  secretKey: string;
  apiUrl: string;
  /** How long one attempt may take; the client tries once more after a failure to connect, a 409 or a 5xx. */
  timeoutMs: number;
}

/** The official client, pointed at `apiUrl` (Stripe's API, or a loopback server that speaks it). */
export function stripeClient({ secretKey, apiUrl, timeoutMs }: StripeClientOptions): Stripe {
  const url = new URL(apiUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(secretKey, {
    protocol,
    // `new URL` keeps an IPv6 literal's brackets; node's http wants the bare address.
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port || (protocol === 'http' ? 80 : 443),
    maxNetworkRetries: 1,
    timeout: timeoutMs,
    // Latency reports about earlier requests are Stripe's business, not a self-hosted instance's.
    telemetry: false,
    appInfo: { name: 'Tessera payments-stripe', version: '1.0.0' },
  });
}

const KEY_PATTERN = /\b(sk|rk)_(test|live)_[A-Za-z0-9*]+/g;

/** Stripe's messages name the key it refused (masked, but still a key's shape); no detail carries one. */
function redact(text: string, secretKey: string): string {
  return text.split(secretKey).join('[secret key]').replace(KEY_PATTERN, '[secret key]');
}

/** Whether Stripe answered that the object asked for does not exist (a 404 `resource_missing`). */
export function isMissing(error: unknown): boolean {
  return error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404 && error.code === 'resource_missing';
}

/** Whether Stripe refused the request as it was asked (400): sending it again would be refused again. */
export function isRefusedRequest(error: unknown): boolean {
  return error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 400;
}

/**
 * The contract's error for a failed call: a refused card is `PaymentDeclined` with Stripe's reason; everything else
 * Stripe answered or failed to answer is `ProviderUnavailable`. Errors that are not the client's are bugs, and pass.
 */
export function providerFailure(error: unknown, secretKey: string): Error {
  if (!(error instanceof Stripe.errors.StripeError)) return error instanceof Error ? error : new Error(String(error));
  const message = redact(error.message.split('\n')[0], secretKey);
  if (error instanceof Stripe.errors.StripeCardError) return new PaymentDeclined(message || 'The card was declined.');
  if (error instanceof Stripe.errors.StripeConnectionError) {
    const cause = error.detail instanceof Error ? `: ${redact(error.detail.message, secretKey)}` : '';
    return new ProviderUnavailable(`Stripe could not be reached (${message})${cause}`);
  }
  if (error instanceof Stripe.errors.StripeAuthenticationError || error instanceof Stripe.errors.StripePermissionError) {
    return new ProviderUnavailable(`Stripe refused the secret key (${error.statusCode}): ${message}`);
  }
  const code = error.code ? ` ${error.code}` : '';
  return new ProviderUnavailable(`Stripe answered ${error.statusCode ?? 'an error'}${code}: ${message}`);
}
