import { Type, type Static } from '../../core/schema.ts';

/** Amazon SNS's own hosts: `sns.<region>.amazonaws.com`, and `sns.<region>.amazonaws.com.cn` in the China regions. */
export const DEFAULT_SNS_CERTIFICATE_HOSTS = '^sns\\.[a-z0-9-]+\\.amazonaws\\.com(\\.cn)?$';

export const MailBouncesOptions = Type.Object(
  {
    snsCertificateHosts: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        default: DEFAULT_SNS_CERTIFICATE_HOSTS,
        description:
          'A regular expression the host of an SNS message\'s `SigningCertURL` and `SubscribeURL` must match as a whole (default: Amazon SNS\'s hosts). Tests set a loopback host.',
      }),
    ),
    allowInsecureCertificateUrls: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Also fetch `SigningCertURL` and `SubscribeURL` over plain http (tests with a loopback server only; Amazon SNS always gives https).',
      }),
    ),
    topicArns: Type.Optional(
      Type.Array(Type.String({ pattern: '^arn:[a-z-]+:sns:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_.-]{1,256}$' }), {
        maxItems: 100,
        uniqueItems: true,
        description: 'When set, only these SNS topics are heard: a message (or a subscription to confirm) from any other topic is refused.',
      }),
    ),
    sendgridPublicKey: Type.Optional(
      Type.String({
        minLength: 40,
        maxLength: 2000,
        pattern: '^[A-Za-z0-9+/=\\s-]+$',
        description:
          'The verification key SendGrid shows for a signed Event Webhook (base64 of a DER SubjectPublicKeyInfo, ECDSA P-256; a PEM block is taken too). Unset: SendGrid deliveries are refused.',
      }),
    ),
  },
  { additionalProperties: false, default: {} },
);
export type MailBouncesOptions = Static<typeof MailBouncesOptions>;
