import { createVerify, X509Certificate } from 'node:crypto';
import { EVENT_PATTERN, headerOf, type InboundDelivery, type ReadDelivery, refusal, type Refusal } from '../integrations/public.ts';
import { getText, Unreachable } from './http-get.ts';
import { addressesOf, type SesMailEvent } from './payloads.ts';

/** An SNS message older than this (by its signed `Timestamp`) is refused: a captured message cannot be posted again later. */
export const MAX_AGE_MS = 60 * 60 * 1000;
/** A `Timestamp` further ahead of our clock than this is refused too (a clock may be a little off, not more). */
export const MAX_AHEAD_MS = 5 * 60 * 1000;
/** SNS's certificates are a couple of kilobytes; more is not read. */
const MAX_CERTIFICATE_BYTES = 64 * 1024;
/** `ConfirmSubscription` answers a few hundred bytes of XML. */
const MAX_CONFIRMATION_BYTES = 64 * 1024;
/** Certificates kept in memory, by URL (SNS uses one per region at a time; the oldest goes first past this). */
const CERTIFICATE_CACHE_SIZE = 64;

/**
 * The fields each message type signs, in the order AWS documents
 * (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html): each is written `name\nvalue\n`,
 * `Subject` only when the notification has one.
 */
export const SIGNED_FIELDS = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
} as const;
export type SnsMessageType = keyof typeof SIGNED_FIELDS;

/** `SignatureVersion` → the signature algorithm (RSA PKCS #1 v1.5 over the string to sign). */
const ALGORITHMS: Record<string, string> = { '1': 'RSA-SHA1', '2': 'RSA-SHA256' };
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export interface SnsSettings {
  /** Hosts `SigningCertURL` and `SubscribeURL` may be on (matched against the whole host name). */
  hosts: RegExp;
  /** Whether those URLs may be http (tests only). */
  allowHttp: boolean;
  /** The topics heard; null: any. */
  topicArns: ReadonlySet<string> | null;
  timeoutMs: number;
}

/** The string SNS signed for a message of this type: its fields in the documented order, each `name\nvalue\n`. */
export function stringToSign(message: Record<string, unknown>, type: SnsMessageType): string {
  let text = '';
  for (const field of SIGNED_FIELDS[type]) {
    const value = message[field];
    if (value === undefined || value === null) continue;
    text += `${field}\n${String(value)}\n`;
  }
  return text;
}

/**
 * Why a URL an SNS message gives may not be fetched (null: it may): it must be https (http only when allowed), on a
 * host the settings allow, with no user name or password, and a certificate's must name a `.pem` file.
 */
export function snsUrlProblem(raw: string, what: string, settings: Pick<SnsSettings, 'hosts' | 'allowHttp'>, pem: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${what} is not a URL.`;
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && settings.allowHttp)) return `${what} is not an https URL.`;
  if (url.username || url.password) return `${what} carries a user name or password.`;
  if (!settings.hosts.test(url.hostname)) return `${what} is on ${url.hostname.slice(0, 100)}, which is not an Amazon SNS host.`;
  if (pem && !url.pathname.endsWith('.pem')) return `${what} does not name a .pem certificate.`;
  return null;
}

/** SES's type as an event word: lower case, anything else than letters and digits as one `_` (`Rendering Failure` → `rendering_failure`). */
export function kindOf(type: string): string {
  return type
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

function recipients(list: unknown): unknown[] {
  if (!Array.isArray(list)) return [];
  return list.map((entry) => (entry && typeof entry === 'object' ? (entry as { emailAddress?: unknown }).emailAddress : undefined));
}

/** Reads the SES event an SNS notification carries as its `Message`. */
export function readSesMessage(messageId: string, message: string): Refusal | ReadDelivery {
  let ses: unknown;
  try {
    ses = JSON.parse(message);
  } catch {
    return refusal('The SNS notification\'s Message is not JSON, so it is no SES event: subscribe this endpoint to a topic SES publishes to.');
  }
  if (!ses || typeof ses !== 'object' || Array.isArray(ses)) return refusal('The SNS notification\'s Message is not an SES event (not a JSON object).');
  const fields = ses as { notificationType?: unknown; eventType?: unknown; bounce?: unknown; complaint?: unknown };
  // Identity notifications name their type `notificationType`, configuration-set event publishing `eventType`.
  const type = typeof fields.notificationType === 'string' ? fields.notificationType : typeof fields.eventType === 'string' ? fields.eventType : '';
  const kind = kindOf(type);
  const event = `ses.${kind}`;
  if (!kind || !EVENT_PATTERN.test(event)) return refusal('The SNS notification\'s Message is not an SES event: it has no notificationType or eventType.');
  let permanent = false;
  let addresses: string[] = [];
  if (kind === 'bounce') {
    const bounce = (fields.bounce && typeof fields.bounce === 'object' ? fields.bounce : {}) as { bounceType?: unknown; bouncedRecipients?: unknown };
    permanent = bounce.bounceType === 'Permanent';
    addresses = addressesOf(recipients(bounce.bouncedRecipients));
  } else if (kind === 'complaint') {
    const complaint = (fields.complaint && typeof fields.complaint === 'object' ? fields.complaint : {}) as { complainedRecipients?: unknown };
    permanent = true;
    addresses = addressesOf(recipients(complaint.complainedRecipients));
  }
  const payload: SesMailEvent = { kind, permanent, addresses, source: 'ses', raw: ses };
  return { deliveryId: messageId, event, payload };
}

/**
 * Amazon SNS's HTTP/S deliveries: each message checked as AWS documents (the signing certificate fetched from an SNS
 * host, the string to sign rebuilt from the message's fields, the signature checked with the certificate's key), then
 * read: a subscription confirmed, a notification's SES event read.
 */
export class SnsReceiver {
  private readonly certificates = new Map<string, Promise<X509Certificate>>();

  constructor(private readonly settings: SnsSettings) {}

  async read(delivery: InboundDelivery): Promise<Refusal | ReadDelivery> {
    const announced = headerOf(delivery.headers, 'x-amz-sns-message-type')?.trim();
    let body: unknown;
    try {
      body = JSON.parse(delivery.rawBody.toString('utf8'));
    } catch {
      return refusal('The SNS delivery\'s body is not JSON: turn raw message delivery off for this subscription, SNS signs only its own envelope.');
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) return refusal('The SNS delivery\'s body is not a JSON object.');
    const message = body as Record<string, unknown>;
    const type = message.Type;
    if (typeof type !== 'string' || !Object.hasOwn(SIGNED_FIELDS, type)) return refusal('The SNS message\'s Type is not Notification, SubscriptionConfirmation or UnsubscribeConfirmation.');
    if (announced !== type) return refusal('The x-amz-sns-message-type header does not match the message\'s Type.');
    const snsType = type as SnsMessageType;
    for (const field of [...SIGNED_FIELDS[snsType], 'Signature', 'SignatureVersion', 'SigningCertURL']) {
      const value = message[field];
      if (field === 'Subject' && (value === undefined || value === null)) continue;
      if (typeof value !== 'string') return refusal(`The SNS message has no ${field}.`);
    }
    const fields = message as Record<string, string>;

    const algorithm = ALGORITHMS[fields.SignatureVersion];
    if (!algorithm) return refusal(`The SNS message's SignatureVersion is ${JSON.stringify(fields.SignatureVersion.slice(0, 10))}, not 1 or 2.`);
    if (this.settings.topicArns && !this.settings.topicArns.has(fields.TopicArn))
      return refusal('The SNS message comes from a topic that is not among this instance\'s topicArns.');
    const sent = Date.parse(fields.Timestamp);
    if (Number.isNaN(sent)) return refusal('The SNS message\'s Timestamp is not a date.');
    if (delivery.now - sent > MAX_AGE_MS) return refusal('The SNS message\'s Timestamp is more than an hour old.');
    if (sent - delivery.now > MAX_AHEAD_MS) return refusal('The SNS message\'s Timestamp is more than 5 minutes ahead of this server\'s clock.');
    const certificateProblem = snsUrlProblem(fields.SigningCertURL, 'The SigningCertURL', this.settings, true);
    if (certificateProblem) return refusal(certificateProblem);
    if (snsType === 'SubscriptionConfirmation') {
      const subscribeProblem = snsUrlProblem(fields.SubscribeURL, 'The SubscribeURL', this.settings, false);
      if (subscribeProblem) return refusal(subscribeProblem);
    }
    const signature = fields.Signature.trim();
    if (!BASE64.test(signature) || signature.length > 4096) return refusal('The SNS message\'s Signature is not base64.');

    const certificateUrl = new URL(fields.SigningCertURL);
    let certificate: X509Certificate;
    try {
      certificate = await this.certificate(certificateUrl);
    } catch (err) {
      return refusal(`The signing certificate could not be had from ${certificateUrl.host}: ${err instanceof Error ? err.message : String(err)}.`);
    }
    const from = Date.parse(certificate.validFrom);
    const to = Date.parse(certificate.validTo);
    if (!(from <= delivery.now && delivery.now <= to)) {
      this.certificates.delete(certificateUrl.href);
      return refusal('The signing certificate is not valid now (expired, or not yet valid).');
    }
    let good = false;
    try {
      good = createVerify(algorithm).update(stringToSign(fields, snsType), 'utf8').verify(certificate.publicKey, Buffer.from(signature, 'base64'));
    } catch {
      good = false;
    }
    if (!good) return refusal('The SNS message\'s signature does not match its fields: it was not signed by Amazon SNS, or it was altered.');

    if (snsType === 'Notification') return readSesMessage(fields.MessageId, fields.Message);
    if (snsType === 'UnsubscribeConfirmation')
      return { deliveryId: fields.MessageId, event: 'sns.unsubscribe_confirmation', payload: { topic_arn: fields.TopicArn }, reply: { status: 200, body: { unsubscribed: true } } };
    return this.confirm(fields);
  }

  /** Confirms a subscription by visiting its `SubscribeURL`, as SNS asks; nothing is stored either way. */
  private async confirm(fields: Record<string, string>): Promise<ReadDelivery> {
    const read = { deliveryId: fields.MessageId, event: 'sns.subscription_confirmation', payload: { topic_arn: fields.TopicArn } };
    let answer: { status: number };
    try {
      answer = await getText(new URL(fields.SubscribeURL), this.settings.timeoutMs, MAX_CONFIRMATION_BYTES);
    } catch (err) {
      const why = err instanceof Unreachable ? err.message : String(err);
      return { ...read, reply: { status: 502, body: { confirmed: false, detail: `Amazon SNS could not be reached to confirm the subscription: ${why}.` } } };
    }
    if (answer.status !== 200)
      return { ...read, reply: { status: 502, body: { confirmed: false, detail: `Amazon SNS answered ${answer.status} to the subscription's confirmation.` } } };
    return { ...read, reply: { status: 200, body: { confirmed: true } } };
  }

  /** The certificate at `url`, fetched once and kept (a failed fetch is not kept, so the next message tries again). */
  private certificate(url: URL): Promise<X509Certificate> {
    const key = url.href;
    const cached = this.certificates.get(key);
    if (cached) return cached;
    if (this.certificates.size >= CERTIFICATE_CACHE_SIZE) {
      const oldest = this.certificates.keys().next().value;
      if (oldest !== undefined) this.certificates.delete(oldest);
    }
    const pending = this.fetchCertificate(url);
    this.certificates.set(key, pending);
    pending.catch(() => {
      if (this.certificates.get(key) === pending) this.certificates.delete(key);
    });
    return pending;
  }

  private async fetchCertificate(url: URL): Promise<X509Certificate> {
    let answer: { status: number; text: string };
    try {
      answer = await getText(url, this.settings.timeoutMs, MAX_CERTIFICATE_BYTES);
    } catch (err) {
      throw new Error(err instanceof Unreachable ? `no answer (${err.message})` : String(err));
    }
    if (answer.status !== 200) throw new Error(`it answered ${answer.status}`);
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(answer.text);
    } catch {
      throw new Error('what it answered is not an X.509 certificate');
    }
    if (certificate.publicKey.asymmetricKeyType !== 'rsa') throw new Error('the certificate\'s key is not an RSA key');
    return certificate;
  }
}
