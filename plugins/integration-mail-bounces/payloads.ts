/**
 * What the deliveries of `mail-bounces` become: the payload of `integration.mail_bounces.<event>` (under the
 * integrations plugin's envelope, as `payload`).
 */

/** One SES event read from an SNS notification (`ses.bounce`, `ses.complaint`, `ses.delivery`, …). */
export interface SesMailEvent {
  /** `bounce`, `complaint`, or SES's other type in lower case, words joined by `_` (`delivery`, `rendering_failure`). */
  kind: string;
  /** A bounce SES calls `Permanent` (the address will not take mail); every complaint. Otherwise false. */
  permanent: boolean;
  /** The bounced or complaining recipients, lower case, each once; empty for other kinds. */
  addresses: string[];
  source: 'ses';
  /** SES's message as it sent it (the SNS `Message`, parsed). */
  raw: unknown;
}

/** One SendGrid Event Webhook post (`sendgrid.events`): a batch of events, of which bounces and spam reports are picked. */
export interface SendgridBatch {
  kind: 'batch';
  source: 'sendgrid';
  /** Addresses of `bounce` events (not `blocked` ones) and of `dropped` events whose reason is `Bounced Address`. */
  bounces: string[];
  /** Addresses of `spamreport` events. */
  complaints: string[];
  /** The posted array as it came. */
  raw: unknown[];
}

export type MailBouncePayload = SesMailEvent | SendgridBatch;

export const SES_BOUNCE = 'ses.bounce';
export const SES_COMPLAINT = 'ses.complaint';
export const SENDGRID_EVENTS = 'sendgrid.events';

const ADDRESS = /^[^\s@<>]+@[^\s@<>]+$/;

/**
 * A recipient as a mail address to act on: trimmed, the part in angle brackets when there is one
 * (`"Alice" <alice@example.com>`), lower case; null when it is not one.
 */
export function addressOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  let text = value.trim();
  const angled = /<([^<>]*)>\s*$/.exec(text);
  if (angled) text = angled[1].trim();
  text = text.toLowerCase();
  return text.length <= 320 && ADDRESS.test(text) ? text : null;
}

/** The addresses among `values`, each once, in the order first seen. */
export function addressesOf(values: Iterable<unknown>): string[] {
  const seen = new Set<string>();
  for (const value of values) {
    const address = addressOf(value);
    if (address) seen.add(address);
  }
  return [...seen];
}
