import type { KeyObject } from 'node:crypto';
import type { IntegrationProvider, Refusal } from '../integrations/public.ts';
import { SENDGRID_EVENTS, SES_BOUNCE, SES_COMPLAINT } from './payloads.ts';
import { readSendgrid, sendgridKey, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './sendgrid.ts';
import { SnsReceiver } from './sns.ts';
import { DEFAULT_SNS_CERTIFICATE_HOSTS } from './schemas.ts';

export interface MailBouncesProviderOptions {
  /** A regular expression the host of `SigningCertURL` and `SubscribeURL` must match as a whole (default: Amazon SNS's hosts). */
  snsCertificateHosts?: string;
  /** Let those URLs be http (loopback tests only). Default false. */
  allowInsecureCertificateUrls?: boolean;
  /** Only these SNS topics are heard; unset or empty: any. */
  topicArns?: string[];
  /** SendGrid's verification key (base64 DER SPKI); unset: SendGrid deliveries are refused. */
  sendgridPublicKey?: string;
  /** How long a request to SNS (certificate, confirmation) may take (default 10 s); tests shorten it. */
  timeoutMs?: number;
}

const TIMEOUT_MS = 10_000;

/** The host pattern as given, anchored whatever it says, so `sns.example.com` cannot match `sns.example.com.evil.net`. */
function hostPattern(source: string): RegExp {
  try {
    return new RegExp(`^(?:${source})$`);
  } catch {
    throw new Error(`snsCertificateHosts is not a regular expression: ${source}`);
  }
}

/** The mail-bounces provider, as the plugin adds it to `integrations.providers`; tests call it directly. */
export function mailBouncesProvider(options: MailBouncesProviderOptions = {}): IntegrationProvider {
  const sns = new SnsReceiver({
    hosts: hostPattern(options.snsCertificateHosts ?? DEFAULT_SNS_CERTIFICATE_HOSTS),
    allowHttp: options.allowInsecureCertificateUrls === true,
    topicArns: options.topicArns && options.topicArns.length > 0 ? new Set(options.topicArns) : null,
    timeoutMs: options.timeoutMs ?? TIMEOUT_MS,
  });
  // A key that is not one stops the plugin at start, with the sentence saying why, rather than every delivery later.
  const key: KeyObject | null = options.sendgridPublicKey ? sendgridKey(options.sendgridPublicKey) : null;
  return {
    id: 'mail-bounces',
    name: 'Mail bounces',
    categories: ['mail'],
    auth: { type: 'none' },
    // Its deliveries mark accounts' addresses across the instance: only an instance admin connects it.
    instanceAdminsOnly: true,
    // SNS signs with Amazon's certificates, SendGrid with the account's key: no secret of ours is involved.
    signsWithSharedSecret: false,
    async test() {
      return {
        ok: true,
        detail: key
          ? 'Nothing to call: SES deliveries are checked against Amazon SNS\'s certificates, SendGrid ones against sendgridPublicKey.'
          : 'Nothing to call: SES deliveries are checked against Amazon SNS\'s certificates; SendGrid ones are refused until sendgridPublicKey is set.',
      };
    },
    verifyWebhook(delivery) {
      const fromSns = delivery.headers['x-amz-sns-message-type'] !== undefined;
      const fromSendgrid = delivery.headers[SIGNATURE_HEADER] !== undefined || delivery.headers[TIMESTAMP_HEADER] !== undefined;
      if (fromSns && fromSendgrid) return { refused: 'The delivery carries both Amazon SNS and SendGrid headers, so it is neither.' } satisfies Refusal;
      if (fromSns) return sns.read(delivery);
      if (fromSendgrid) return readSendgrid(delivery, key);
      return {
        refused:
          'The delivery is neither from Amazon SNS (no x-amz-sns-message-type header) nor a signed SendGrid Event Webhook post (no X-Twilio-Email-Event-Webhook-Signature header).',
      };
    },
    events: [SES_BOUNCE, SES_COMPLAINT, 'ses.delivery', SENDGRID_EVENTS],
  };
}
