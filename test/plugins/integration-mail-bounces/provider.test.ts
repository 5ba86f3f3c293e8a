import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, createPrivateKey, createSign, generateKeyPairSync, randomUUID, sign, X509Certificate, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { compile } from '../../../core/schema.ts';
import { refused, type InboundDelivery, type IntegrationProvider, type ReadDelivery, type Refusal } from '../../../plugins/integrations/public.ts';
import plugin, { createMailBouncesPlugin } from '../../../plugins/integration-mail-bounces/index.ts';
import { mailBouncesProvider, type MailBouncesProviderOptions } from '../../../plugins/integration-mail-bounces/provider.ts';
import { snsUrlProblem } from '../../../plugins/integration-mail-bounces/sns.ts';
import { DEFAULT_SNS_CERTIFICATE_HOSTS, MailBouncesOptions } from '../../../plugins/integration-mail-bounces/schemas.ts';
import type { SendgridBatch, SesMailEvent } from '../../../plugins/integration-mail-bounces/public.ts';
import { storageIndependent } from '../../fixtures/suite-runs.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:ses-bounces';
const OTHER_TOPIC = 'arn:aws:sns:us-east-1:210987654321:someone-elses';
const CERT_PATH = '/SimpleNotificationService-0123456789abcdef.pem';

/** The SNS signing key pair: an RSA key and a self-signed certificate made with the openssl CLI (node:crypto makes no certificates). */
interface Signer {
  key: KeyObject;
  pem: string;
}

function makeSigner(dir: string, name: string): Signer {
  const keyFile = path.join(dir, `${name}.key`);
  const certFile = path.join(dir, `${name}.pem`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=sns.amazonaws.com'], { stdio: 'pipe' });
  return { key: createPrivateKey(fs.readFileSync(keyFile)), pem: fs.readFileSync(certFile, 'utf8') };
}

/** A loopback server playing SNS's host: the certificate, `ConfirmSubscription`, and a few wrong answers; it counts what it was asked. */
async function fakeSns(certificate: () => string) {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    const url = req.url ?? '';
    seen.push(url);
    if (req.method !== 'GET') {
      res.writeHead(405);
      return res.end();
    }
    if (url === CERT_PATH) {
      res.writeHead(200, { 'content-type': 'application/x-x509-ca-cert' });
      return res.end(certificate());
    }
    if (url === '/garbage.pem') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('this is not a certificate');
    }
    if (url === '/redirect.pem') {
      res.writeHead(302, { location: CERT_PATH });
      return res.end();
    }
    if (url.startsWith('/?Action=ConfirmSubscription&')) {
      res.writeHead(200, { 'content-type': 'text/xml' });
      return res.end(
        '<ConfirmSubscriptionResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><ConfirmSubscriptionResult><SubscriptionArn>' +
          `${TOPIC}:2bcfbf39-05c3-41de-beaa-fcfcc21c8f55</SubscriptionArn></ConfirmSubscriptionResult></ConfirmSubscriptionResponse>`,
      );
    }
    if (url.startsWith('/?Action=RefuseSubscription&')) {
      res.writeHead(403, { 'content-type': 'text/xml' });
      return res.end('<ErrorResponse><Error><Code>InvalidParameter</Code></Error></ErrorResponse>');
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type SnsType = 'Notification' | 'SubscriptionConfirmation' | 'UnsubscribeConfirmation';

/**
 * The string SNS signs, written out here from AWS's documentation rather than taken from the provider: each field as
 * `name\nvalue\n`, in this order per type, `Subject` only when there is one.
 */
function canonical(message: Record<string, string>): string {
  const order =
    message.Type === 'Notification'
      ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
      : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  return order
    .filter((name) => message[name] !== undefined)
    .map((name) => `${name}\n${message[name]}\n`)
    .join('');
}

interface SnsOptions {
  type?: SnsType;
  message?: string;
  subject?: string;
  version?: '1' | '2';
  key?: KeyObject;
  certUrl?: string;
  topic?: string;
  timestamp?: number;
  subscribeUrl?: string;
  id?: string;
}

/** Builds and signs a message exactly as SNS does, and posts it as SNS posts (pretty-printed JSON, text/plain). */
function snsDelivery(signer: Signer, origin: string, opts: SnsOptions = {}, now = Date.now()): InboundDelivery {
  const type = opts.type ?? 'Notification';
  const id = opts.id ?? randomUUID();
  const topic = opts.topic ?? TOPIC;
  const message: Record<string, string> = { Type: type, MessageId: id };
  if (type !== 'Notification') message.Token = '2336412f37fb687f5d51e6e2425dacbbaf8a7c6e1a6a2c3f0a6f6f8e1b5a0c9d';
  message.TopicArn = topic;
  if (opts.subject !== undefined) message.Subject = opts.subject;
  message.Message =
    opts.message ??
    (type === 'Notification'
      ? 'unused'
      : `You have chosen to subscribe to the topic ${topic}.\nTo confirm the subscription, visit the SubscribeURL included in this message.`);
  if (type !== 'Notification')
    message.SubscribeURL = opts.subscribeUrl ?? `${origin}/?Action=ConfirmSubscription&TopicArn=${encodeURIComponent(topic)}&Token=${message.Token}`;
  message.Timestamp = new Date(opts.timestamp ?? now).toISOString();
  const version = opts.version ?? '1';
  message.SignatureVersion = version;
  message.Signature = createSign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256')
    .update(canonical(message), 'utf8')
    .sign(opts.key ?? signer.key, 'base64');
  message.SigningCertURL = opts.certUrl ?? `${origin}${CERT_PATH}`;
  if (type === 'Notification') message.UnsubscribeURL = `${origin}/?Action=Unsubscribe&SubscriptionArn=${encodeURIComponent(`${topic}:2bcfbf39`)}`;
  return {
    rawBody: Buffer.from(JSON.stringify(message, null, 2), 'utf8'),
    headers: {
      'content-type': 'text/plain; charset=UTF-8',
      'user-agent': 'Amazon Simple Notification Service Agent',
      'x-amz-sns-message-type': type,
      'x-amz-sns-message-id': id,
      'x-amz-sns-topic-arn': topic,
      ...(type === 'Notification' ? { 'x-amz-sns-subscription-arn': `${topic}:2bcfbf39-05c3-41de-beaa-fcfcc21c8f55` } : {}),
    },
    secret: null,
    now,
  };
}

/** An SES bounce notification as SES publishes it to SNS (identity notifications). */
function sesBounce(bounceType = 'Permanent') {
  return {
    notificationType: 'Bounce',
    bounce: {
      bounceType,
      bounceSubType: 'General',
      bouncedRecipients: [
        { emailAddress: 'Alice@Example.COM', action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' },
        { emailAddress: '"Bob B." <bob@example.org>', action: 'failed', status: '5.1.1' },
        { emailAddress: 'alice@example.com', action: 'failed', status: '5.1.1' },
      ],
      timestamp: '2024-05-02T00:54:06.655Z',
      feedbackId: '0100018f3a4e2d1c-4b1c5a3e-1e1f-4e6b-9f1d-7e2a1b3c4d5e-000000',
      reportingMTA: 'dsn; a8-70.smtp-out.amazonses.com',
    },
    mail: {
      timestamp: '2024-05-02T00:54:05.000Z',
      source: 'notifications@tessera.example',
      sourceArn: 'arn:aws:ses:us-east-1:123456789012:identity/tessera.example',
      sendingAccountId: '123456789012',
      messageId: '0100018f3a4e2a00-aaaa-bbbb-cccc-ddddeeeeffff-000000',
      destination: ['Alice@Example.COM', 'bob@example.org'],
    },
  };
}

const sesComplaint = {
  eventType: 'Complaint',
  complaint: {
    complainedRecipients: [{ emailAddress: 'Carol@Example.net' }],
    timestamp: '2024-05-02T01:00:00.000Z',
    feedbackId: '0100018f3a5e-complaint-000000',
    complaintFeedbackType: 'abuse',
  },
  mail: { source: 'notifications@tessera.example', destination: ['carol@example.net'], messageId: '0100018f3a5e-mail-000000' },
};

async function read(provider: IntegrationProvider, delivery: InboundDelivery): Promise<ReadDelivery> {
  const outcome = await provider.verifyWebhook!(delivery);
  if (refused(outcome)) assert.fail(`refused: ${outcome.refused}`);
  return outcome;
}

async function refusal(provider: IntegrationProvider, delivery: InboundDelivery): Promise<string> {
  const outcome = await provider.verifyWebhook!(delivery);
  assert.ok(refused(outcome), `expected a refusal, got ${JSON.stringify(outcome).slice(0, 300)}`);
  const text = (outcome as Refusal).refused;
  assert.equal(typeof text, 'string');
  assert.ok(text.length > 10, text);
  return text;
}

/** A SendGrid batch of events as SendGrid posts it, signed with the account key made in the test. */
function sendgridDelivery(privateKey: KeyObject, events: unknown, opts: { timestamp?: number; now?: number } = {}): InboundDelivery {
  const now = opts.now ?? Date.now();
  const timestamp = String(Math.floor((opts.timestamp ?? now) / 1000));
  const body = Buffer.from(`${JSON.stringify(events)}\r\n`, 'utf8');
  const signature = sign('sha256', Buffer.concat([Buffer.from(timestamp), body]), privateKey).toString('base64');
  return {
    rawBody: body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'SendGrid Event API',
      'x-twilio-email-event-webhook-signature': signature,
      'x-twilio-email-event-webhook-timestamp': timestamp,
    },
    secret: null,
    now,
  };
}

const SENDGRID_EVENTS = [
  { email: 'Dave@Example.com', timestamp: 1513299569, 'smtp-id': '<14c5d75ce93.dfd.64b469@ismtpd-555>', event: 'bounce', type: 'bounce', reason: '500 unknown recipient', status: '5.0.0', sg_event_id: 'ZGF2ZS1ib3VuY2U', sg_message_id: '14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0' },
  { email: 'blocked@example.com', timestamp: 1513299569, event: 'bounce', type: 'blocked', reason: '550 blocked by policy', status: '5.7.1', sg_event_id: 'YmxvY2tlZA' },
  { email: 'erin@example.com', timestamp: 1513299569, event: 'dropped', reason: 'Bounced Address', status: '5.0.0', sg_event_id: 'ZXJpbi1kcm9wcGVk' },
  { email: 'frank@example.com', timestamp: 1513299569, event: 'dropped', reason: 'Unsubscribed Address', sg_event_id: 'ZnJhbmstZHJvcHBlZA' },
  { email: 'Grace@Example.com', timestamp: 1513299569, event: 'spamreport', sg_event_id: 'Z3JhY2Utc3BhbQ' },
  { email: 'heidi@example.com', timestamp: 1513299569, event: 'delivered', response: '250 OK', sg_event_id: 'aGVpZGktZGVsaXZlcmVk' },
  { email: 'dave@example.com', timestamp: 1513299570, event: 'bounce', type: 'bounce', sg_event_id: 'ZGF2ZS1hZ2Fpbg' },
];

describe('integration-mail-bounces provider', () => {
  storageIndependent();

  let dir: string;
  let signer: Signer;
  let impostor: Signer;
  let served: string;
  let sns: Awaited<ReturnType<typeof fakeSns>>;
  let options: MailBouncesProviderOptions;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mail-bounces-'));
    signer = makeSigner(dir, 'sns');
    impostor = makeSigner(dir, 'impostor');
    served = signer.pem;
    sns = await fakeSns(() => served);
    options = { snsCertificateHosts: '127\\.0\\.0\\.1', allowInsecureCertificateUrls: true, timeoutMs: 2000 };
  });

  after(async () => {
    await sns?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    sns.seen.length = 0;
    served = signer.pem;
  });

  it('declares Mail bounces: id, name, mail category, no auth, no shared secret, its events; the plugin taps integrations', async () => {
    const provider = mailBouncesProvider();
    assert.equal(provider.id, 'mail-bounces');
    assert.equal(provider.name, 'Mail bounces');
    assert.deepEqual(provider.categories, ['mail']);
    assert.deepEqual(provider.auth, { type: 'none' });
    assert.equal(provider.signsWithSharedSecret, false);
    assert.equal(provider.instanceAdminsOnly, true);
    assert.equal(typeof provider.verifyWebhook, 'function');
    for (const event of ['ses.bounce', 'ses.complaint', 'sendgrid.events']) assert.ok(provider.events?.includes(event), event);
    const outcome = await provider.test({});
    assert.equal(outcome.ok, true);
    assert.match(outcome.detail, /Nothing to call/);
    assert.equal(plugin.id, 'integration-mail-bounces');
    assert.equal(createMailBouncesPlugin().id, 'integration-mail-bounces');
    assert.deepEqual(plugin.dependsOn, { integrations: '^1.0.0', auth: '^1.0.0' });
  });

  it('has an options schema with SNS\'s hosts by default, that refuses what is not an option', () => {
    const validate = compile(MailBouncesOptions);
    const empty: Record<string, unknown> = {};
    assert.equal(validate(empty), true);
    assert.equal(empty.snsCertificateHosts, DEFAULT_SNS_CERTIFICATE_HOSTS);
    assert.equal(empty.allowInsecureCertificateUrls, false);
    assert.equal(validate({ topicArns: [TOPIC, 'arn:aws-cn:sns:cn-north-1:123456789012:bounces.fifo'], sendgridPublicKey: 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE' + 'A'.repeat(40) }), true);
    assert.equal(validate({ topicArns: ['not an arn'] }), false);
    assert.equal(validate({ apiKey: 'x' }), false);
    assert.equal(validate({ allowInsecureCertificateUrls: 'yes' }), false);
  });

  describe('Amazon SES through SNS', () => {
    it('reads a Bounce notification: addresses lower-cased and once each, permanent, the MessageId as delivery id', async () => {
      const provider = mailBouncesProvider(options);
      const ses = sesBounce();
      const id = '22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324';
      const got = await read(provider, snsDelivery(signer, sns.origin, { message: JSON.stringify(ses), id }));
      assert.equal(got.event, 'ses.bounce');
      assert.equal(got.deliveryId, id);
      assert.equal(got.reply, undefined);
      const payload = got.payload as SesMailEvent;
      assert.deepEqual(payload, { kind: 'bounce', permanent: true, addresses: ['alice@example.com', 'bob@example.org'], source: 'ses', raw: ses });
      assert.deepEqual(sns.seen, [CERT_PATH]);
    });

    it('reads a transient bounce as not permanent', async () => {
      const got = await read(mailBouncesProvider(options), snsDelivery(signer, sns.origin, { message: JSON.stringify(sesBounce('Transient')) }));
      assert.equal(got.event, 'ses.bounce');
      assert.equal((got.payload as SesMailEvent).permanent, false);
      assert.deepEqual((got.payload as SesMailEvent).addresses, ['alice@example.com', 'bob@example.org']);
    });

    it('reads a Complaint (event publishing\'s eventType): permanent, the complaining address', async () => {
      const got = await read(mailBouncesProvider(options), snsDelivery(signer, sns.origin, { message: JSON.stringify(sesComplaint), version: '2' }));
      assert.equal(got.event, 'ses.complaint');
      assert.deepEqual(got.payload, { kind: 'complaint', permanent: true, addresses: ['carol@example.net'], source: 'ses', raw: sesComplaint });
    });

    it('reads other SES events under their own lower-case name, with no addresses to act on', async () => {
      const provider = mailBouncesProvider(options);
      const delivery = { notificationType: 'Delivery', delivery: { recipients: ['heidi@example.com'] }, mail: { destination: ['heidi@example.com'] } };
      const got = await read(provider, snsDelivery(signer, sns.origin, { message: JSON.stringify(delivery) }));
      assert.equal(got.event, 'ses.delivery');
      assert.deepEqual(got.payload, { kind: 'delivery', permanent: false, addresses: [], source: 'ses', raw: delivery });
      const failure = await read(provider, snsDelivery(signer, sns.origin, { message: JSON.stringify({ eventType: 'Rendering Failure', failure: {} }) }));
      assert.equal(failure.event, 'ses.rendering_failure');
    });

    it('checks SignatureVersion 1 with SHA-1 and 2 with SHA-256, not the other way round', async () => {
      const provider = mailBouncesProvider(options);
      const message = JSON.stringify(sesBounce());
      assert.equal((await read(provider, snsDelivery(signer, sns.origin, { message, version: '1' }))).event, 'ses.bounce');
      assert.equal((await read(provider, snsDelivery(signer, sns.origin, { message, version: '2' }))).event, 'ses.bounce');
      // Signed with SHA-256 but labelled version 1 (and the reverse): the signature does not check out.
      const two = snsDelivery(signer, sns.origin, { message, version: '2' });
      const labelledOne = Buffer.from(two.rawBody.toString('utf8').replace('"SignatureVersion": "2"', '"SignatureVersion": "1"'));
      assert.notDeepEqual(labelledOne, two.rawBody);
      assert.match(await refusal(provider, { ...two, rawBody: labelledOne }), /signature does not match/);
      const one = snsDelivery(signer, sns.origin, { message, version: '1' });
      const labelledTwo = Buffer.from(one.rawBody.toString('utf8').replace('"SignatureVersion": "1"', '"SignatureVersion": "2"'));
      assert.match(await refusal(provider, { ...one, rawBody: labelledTwo }), /signature does not match/);
      const three = Buffer.from(one.rawBody.toString('utf8').replace('"SignatureVersion": "1"', '"SignatureVersion": "3"'));
      assert.match(await refusal(provider, { ...one, rawBody: three }), /SignatureVersion/);
    });

    it('signs the Subject when a notification has one', async () => {
      const provider = mailBouncesProvider(options);
      const delivery = snsDelivery(signer, sns.origin, { message: JSON.stringify(sesBounce()), subject: 'Amazon SES Bounce' });
      assert.equal((await read(provider, delivery)).event, 'ses.bounce');
      const changed = Buffer.from(delivery.rawBody.toString('utf8').replace('Amazon SES Bounce', 'Amazon SES Bouncx'));
      assert.match(await refusal(provider, { ...delivery, rawBody: changed }), /signature does not match/);
    });

    it('fetches a certificate once and keeps it', async () => {
      const provider = mailBouncesProvider(options);
      for (let i = 0; i < 3; i++) await read(provider, snsDelivery(signer, sns.origin, { message: JSON.stringify(sesBounce()) }));
      assert.deepEqual(sns.seen, [CERT_PATH]);
    });

    it('refuses a message with one byte of its Message changed after signing', async () => {
      const provider = mailBouncesProvider(options);
      const delivery = snsDelivery(signer, sns.origin, { message: JSON.stringify(sesBounce()) });
      const text = delivery.rawBody.toString('utf8');
      const at = delivery.rawBody.indexOf('bob@example.org');
      assert.ok(at > 0);
      const changed = Buffer.from(delivery.rawBody);
      changed[at] = 'm'.charCodeAt(0);
      assert.equal(changed.toString('utf8'), text.replace('bob@example.org', 'mob@example.org'));
      assert.match(await refusal(provider, { ...delivery, rawBody: changed }), /signature does not match/);
      // The untouched one is read: the refusal was the change.
      assert.equal((await read(provider, delivery)).event, 'ses.bounce');
    });

    it('refuses a message signed with a key that is not the certificate\'s, or with a signature that is not one', async () => {
      const provider = mailBouncesProvider(options);
      assert.match(await refusal(provider, snsDelivery(signer, sns.origin, { message: JSON.stringify(sesBounce()), key: impostor.key })), /signature does not match/);
      const delivery = snsDelivery(signer, sns.origin, { message: JSON.stringify(sesBounce()) });
      const body = JSON.parse(delivery.rawBody.toString('utf8'));
      for (const bad of ['', 'not base64!', Buffer.alloc(256, 7).toString('base64')]) {
        const rawBody = Buffer.from(JSON.stringify({ ...body, Signature: bad }, null, 2));
        assert.match(await refusal(provider, { ...delivery, rawBody }), /Signature|signature/, bad);
      }
    });

    it('refuses what the certificate URL serves when it is not a certificate, or a redirect', async () => {
      const provider = mailBouncesProvider(options);
      const message = JSON.stringify(sesBounce());
      assert.match(await refusal(provider, snsDelivery(signer, sns.origin, { message, certUrl: `${sns.origin}/garbage.pem` })), /not an X\.509 certificate/);
      assert.match(await refusal(provider, snsDelivery(signer, sns.origin, { message, certUrl: `${sns.origin}/redirect.pem` })), /answered 302/);
      assert.match(await refusal(provider, snsDelivery(signer, sns.origin, { message, certUrl: `${sns.origin}/missing.pem` })), /answered 404/);
      assert.deepEqual(sns.seen, ['/garbage.pem', '/redirect.pem', '/missing.pem']);
    });

    it('refuses a certificate URL on another host, not https, or not a .pem, without fetching it', async () => {
      const message = JSON.stringify(sesBounce());
      const provider = mailBouncesProvider(options);
      assert.match(await refusal(provider, snsDelivery(signer, sns.origin, { message, certUrl: `http://localhost:${sns.port}${CERT_PATH}` })), /localhost, which is not an Amazon SNS host/);
      assert.match(await refusal(provider, snsDelivery(signer, sns.origin, { message, certUrl: `${sns.origin}/SimpleNotificationService.crt` })), /\.pem/);
      assert.match(await refusal(provider, snsDelivery(signer, sns.origin, { message, certUrl: `ftp://127.0.0.1:${sns.port}${CERT_PATH}` })), /not an https URL/);
      assert.match(await refusal(provider, snsDelivery(signer, sns.origin, { message, certUrl: `http://user:pw@127.0.0.1:${sns.port}${CERT_PATH}` })), /user name or password/);
      // The same loopback URL is refused when http is not allowed (the default), and by the default host list.
      const strict = mailBouncesProvider({ ...options, allowInsecureCertificateUrls: false });
      assert.match(await refusal(strict, snsDelivery(signer, sns.origin, { message })), /not an https URL/);
      const defaults = mailBouncesProvider({ allowInsecureCertificateUrls: true });
      assert.match(await refusal(defaults, snsDelivery(signer, sns.origin, { message })), /127\.0\.0\.1, which is not an Amazon SNS host/);
      assert.deepEqual(sns.seen, []);
    });

    it('takes only Amazon SNS\'s hosts by default, matched as a whole', () => {
      const settings = { hosts: new RegExp(`^(?:${DEFAULT_SNS_CERTIFICATE_HOSTS})$`), allowHttp: false };
      for (const ok of [
        'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-9c6465fa7f48f5cacd23014631ec1136.pem',
        'https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService-3250158c6da3d7fd3a4a2f2d6b8a9f53.pem',
        'https://SNS.eu-west-1.amazonaws.com/x.pem',
      ])
        assert.equal(snsUrlProblem(ok, 'The SigningCertURL', settings, true), null, ok);
      for (const bad of [
        'https://sns.us-east-1.amazonaws.com.evil.example/x.pem',
        'https://evilsns.us-east-1.amazonaws.com/x.pem',
        'https://sns.us-east-1.amazonaws.com@evil.example/x.pem',
        'https://s3.amazonaws.com/sns.us-east-1.amazonaws.com/x.pem',
        'https://sns.us_east.amazonaws.com/x.pem',
        'http://sns.us-east-1.amazonaws.com/x.pem',
        'https://sns.us-east-1.amazonaws.com/x.pem.txt',
        'not a url',
      ])
        assert.notEqual(snsUrlProblem(bad, 'The SigningCertURL', settings, true), null, bad);
      // An anchor-less pattern in the option still has to match the whole host.
      const loose = { hosts: new RegExp('^(?:sns\\.example\\.com)$'), allowHttp: false };
      assert.notEqual(snsUrlProblem('https://sns.example.com.evil.net/x.pem', 'x', loose, true), null);
    });

    it('refuses a message whose Timestamp is over an hour old (or well ahead), and takes one 59 minutes old', async () => {
      const provider = mailBouncesProvider(options);
      const message = JSON.stringify(sesBounce());
      const now = Date.now();
      assert.match(await refusal(provider, snsDelivery(signer, sns.origin, { message, timestamp: now - 61 * 60_000 }, now)), /more than an hour old/);
      assert.match(await refusal(provider, snsDelivery(signer, sns.origin, { message, timestamp: now + 10 * 60_000 }, now)), /ahead/);
      assert.equal((await read(provider, snsDelivery(signer, sns.origin, { message, timestamp: now - 59 * 60_000 }, now))).event, 'ses.bounce');
    });

    it('refuses a message from a topic outside topicArns, and takes the listed one', async () => {
      const provider = mailBouncesProvider({ ...options, topicArns: [TOPIC] });
      const message = JSON.stringify(sesBounce());
      assert.match(await refusal(provider, snsDelivery(signer, sns.origin, { message, topic: OTHER_TOPIC })), /not among this instance's topicArns/);
      assert.equal((await read(provider, snsDelivery(signer, sns.origin, { message, topic: TOPIC }))).event, 'ses.bounce');
      // Without the list, any topic is heard.
      assert.equal((await read(mailBouncesProvider(options), snsDelivery(signer, sns.origin, { message, topic: OTHER_TOPIC }))).event, 'ses.bounce');
    });

    it('refuses a certificate that is not valid at the delivery\'s time', async () => {
      const provider = mailBouncesProvider(options);
      const cert = new X509Certificate(signer.pem);
      const later = Date.parse(cert.validTo) + 60_000;
      assert.match(await refusal(provider, snsDelivery(signer, sns.origin, { message: JSON.stringify(sesBounce()) }, later)), /not valid now/);
      const earlier = Date.parse(cert.validFrom) - 60 * 60_000;
      assert.match(await refusal(provider, snsDelivery(signer, sns.origin, { message: JSON.stringify(sesBounce()) }, earlier)), /not valid now/);
    });

    it('refuses a header that disagrees with the Type, a body that is not JSON, and a notification that is not SES\'s', async () => {
      const provider = mailBouncesProvider(options);
      const delivery = snsDelivery(signer, sns.origin, { message: JSON.stringify(sesBounce()) });
      assert.match(await refusal(provider, { ...delivery, headers: { ...delivery.headers, 'x-amz-sns-message-type': 'SubscriptionConfirmation' } }), /does not match the message's Type/);
      assert.match(await refusal(provider, { ...delivery, rawBody: Buffer.from(JSON.stringify(sesBounce())) }), /Type/);
      assert.match(await refusal(provider, { ...delivery, rawBody: Buffer.from('Message=raw') }), /raw message delivery/);
      assert.match(await refusal(provider, snsDelivery(signer, sns.origin, { message: 'Hello from the SNS console' })), /not JSON/);
      assert.match(await refusal(provider, snsDelivery(signer, sns.origin, { message: JSON.stringify({ hello: 'world' }) })), /no notificationType or eventType/);
      const { 'x-amz-sns-message-type': _, ...noType } = delivery.headers;
      assert.match(await refusal(provider, { ...delivery, headers: noType }), /neither from Amazon SNS/);
    });

    it('confirms a SubscriptionConfirmation by GETting its SubscribeURL, and answers with a reply', async () => {
      const provider = mailBouncesProvider({ ...options, topicArns: [TOPIC] });
      const delivery = snsDelivery(signer, sns.origin, { type: 'SubscriptionConfirmation', version: '2' });
      const got = await read(provider, delivery);
      assert.deepEqual(got.reply, { status: 200, body: { confirmed: true } });
      const confirmations = sns.seen.filter((url) => url.startsWith('/?Action=ConfirmSubscription&'));
      assert.equal(confirmations.length, 1);
      assert.equal(confirmations[0], new URL(JSON.parse(delivery.rawBody.toString('utf8')).SubscribeURL).pathname + new URL(JSON.parse(delivery.rawBody.toString('utf8')).SubscribeURL).search);
    });

    it('does not confirm a subscription whose signature, topic or SubscribeURL is wrong', async () => {
      const provider = mailBouncesProvider({ ...options, topicArns: [TOPIC] });
      const forged = snsDelivery(signer, sns.origin, { type: 'SubscriptionConfirmation', key: impostor.key });
      assert.match(await refusal(provider, forged), /signature does not match/);
      assert.match(await refusal(provider, snsDelivery(signer, sns.origin, { type: 'SubscriptionConfirmation', topic: OTHER_TOPIC })), /topicArns/);
      const elsewhere = snsDelivery(signer, sns.origin, { type: 'SubscriptionConfirmation', subscribeUrl: `http://localhost:${sns.port}/?Action=ConfirmSubscription&Token=x` });
      assert.match(await refusal(provider, elsewhere), /SubscribeURL is on localhost/);
      // The SubscribeURL is signed: pointing it elsewhere after signing breaks the signature.
      const genuine = snsDelivery(signer, sns.origin, { type: 'SubscriptionConfirmation' });
      const moved = Buffer.from(genuine.rawBody.toString('utf8').replace('Action=ConfirmSubscription', 'Action=ConfirmSubscriptioN'));
      assert.match(await refusal(provider, { ...genuine, rawBody: moved }), /signature does not match/);
      assert.equal(sns.seen.filter((url) => url.startsWith('/?')).length, 0);
    });

    it('answers 502 when SNS refuses the confirmation', async () => {
      const provider = mailBouncesProvider(options);
      const delivery = snsDelivery(signer, sns.origin, { type: 'SubscriptionConfirmation', subscribeUrl: `${sns.origin}/?Action=RefuseSubscription&Token=x` });
      const got = await read(provider, delivery);
      assert.equal(got.reply?.status, 502);
      assert.equal((got.reply?.body as { confirmed: boolean }).confirmed, false);
      assert.match((got.reply?.body as { detail: string }).detail, /answered 403/);
    });

    it('acknowledges an UnsubscribeConfirmation without visiting its SubscribeURL', async () => {
      const provider = mailBouncesProvider(options);
      const got = await read(provider, snsDelivery(signer, sns.origin, { type: 'UnsubscribeConfirmation' }));
      assert.deepEqual(got.reply, { status: 200, body: { unsubscribed: true } });
      assert.deepEqual(sns.seen, [CERT_PATH]);
    });
  });

  describe('SendGrid Event Webhook', () => {
    let privateKey: KeyObject;
    let publicKey: string;

    before(() => {
      const pair = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      privateKey = pair.privateKey;
      // As SendGrid shows the verification key: base64 of the DER SubjectPublicKeyInfo.
      publicKey = pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    });

    it('reads a signed batch: bounces (not blocked), dropped bounced addresses, spam reports; the body\'s SHA-256 as delivery id', async () => {
      const provider = mailBouncesProvider({ sendgridPublicKey: publicKey });
      const delivery = sendgridDelivery(privateKey, SENDGRID_EVENTS);
      const got = await read(provider, delivery);
      assert.equal(got.event, 'sendgrid.events');
      assert.equal(got.deliveryId, createHash('sha256').update(delivery.rawBody).digest('hex'));
      const payload = got.payload as SendgridBatch;
      assert.deepEqual(payload, { kind: 'batch', source: 'sendgrid', bounces: ['dave@example.com', 'erin@example.com'], complaints: ['grace@example.com'], raw: SENDGRID_EVENTS });
    });

    it('takes the key as a PEM block too', async () => {
      const pem = `-----BEGIN PUBLIC KEY-----\n${publicKey.match(/.{1,64}/g)!.join('\n')}\n-----END PUBLIC KEY-----\n`;
      const got = await read(mailBouncesProvider({ sendgridPublicKey: pem }), sendgridDelivery(privateKey, SENDGRID_EVENTS));
      assert.deepEqual((got.payload as SendgridBatch).complaints, ['grace@example.com']);
    });

    it('refuses a wrong signature, a changed body, and another account\'s key', async () => {
      const provider = mailBouncesProvider({ sendgridPublicKey: publicKey });
      const delivery = sendgridDelivery(privateKey, SENDGRID_EVENTS);
      const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      assert.match(await refusal(provider, sendgridDelivery(other.privateKey, SENDGRID_EVENTS)), /does not match/);
      const changed = Buffer.from(delivery.rawBody.toString('utf8').replace('Grace@Example.com', 'Grace@Example.con'));
      assert.notDeepEqual(changed, delivery.rawBody);
      assert.match(await refusal(provider, { ...delivery, rawBody: changed }), /does not match/);
      const shifted = { ...delivery.headers, 'x-twilio-email-event-webhook-timestamp': String(Number(delivery.headers['x-twilio-email-event-webhook-timestamp']) - 1) };
      assert.match(await refusal(provider, { ...delivery, headers: shifted }), /does not match/);
      assert.match(await refusal(provider, { ...delivery, headers: { ...delivery.headers, 'x-twilio-email-event-webhook-signature': '!!!' } }), /not base64/);
      assert.match(
        await refusal(mailBouncesProvider({ sendgridPublicKey: other.publicKey.export({ format: 'der', type: 'spki' }).toString('base64') }), delivery),
        /does not match/,
      );
      assert.equal((await read(provider, delivery)).event, 'sendgrid.events');
    });

    it('refuses a timestamp more than 5 minutes from now, either way', async () => {
      const provider = mailBouncesProvider({ sendgridPublicKey: publicKey });
      const now = Date.now();
      assert.match(await refusal(provider, sendgridDelivery(privateKey, SENDGRID_EVENTS, { now, timestamp: now - 301_000 })), /more than 5 minutes old/);
      assert.match(await refusal(provider, sendgridDelivery(privateKey, SENDGRID_EVENTS, { now, timestamp: now + 301_000 })), /ahead/);
      assert.equal((await read(provider, sendgridDelivery(privateKey, SENDGRID_EVENTS, { now, timestamp: now - 290_000 }))).event, 'sendgrid.events');
    });

    it('refuses a post missing either header, or with neither', async () => {
      const provider = mailBouncesProvider({ sendgridPublicKey: publicKey });
      const delivery = sendgridDelivery(privateKey, SENDGRID_EVENTS);
      const { 'x-twilio-email-event-webhook-signature': _s, ...noSignature } = delivery.headers;
      assert.match(await refusal(provider, { ...delivery, headers: noSignature }), /no X-Twilio-Email-Event-Webhook-Signature/);
      const { 'x-twilio-email-event-webhook-timestamp': _t, ...noTimestamp } = delivery.headers;
      assert.match(await refusal(provider, { ...delivery, headers: noTimestamp }), /no X-Twilio-Email-Event-Webhook-Timestamp/);
      assert.match(await refusal(provider, { ...delivery, headers: { 'content-type': 'application/json' } }), /neither from Amazon SNS/);
    });

    it('refuses every SendGrid post when no key is configured, saying so', async () => {
      const text = await refusal(mailBouncesProvider(), sendgridDelivery(privateKey, SENDGRID_EVENTS));
      assert.match(text, /no sendgridPublicKey/);
      const outcome = await mailBouncesProvider().test({});
      assert.equal(outcome.ok, true);
      assert.match(outcome.detail, /refused until sendgridPublicKey is set/);
    });

    it('refuses a signed body that is not an array of events', async () => {
      const provider = mailBouncesProvider({ sendgridPublicKey: publicKey });
      assert.match(await refusal(provider, sendgridDelivery(privateKey, { event: 'bounce', email: 'x@example.com' })), /not a JSON array/);
    });

    it('stops at start on a key that is not an ECDSA P-256 public key', () => {
      assert.throws(() => mailBouncesProvider({ sendgridPublicKey: 'bm90IGEga2V5IGF0IGFsbCwganVzdCB0ZXh0IHRoYXQgbG9va3MgbGlrZSBiYXNlNjQ=' }), /not a public key/);
      const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
      assert.throws(() => mailBouncesProvider({ sendgridPublicKey: rsa }), /not an ECDSA P-256 key/);
      const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
      assert.throws(() => mailBouncesProvider({ sendgridPublicKey: p384 }), /not an ECDSA P-256 key/);
    });

    it('refuses a post carrying both SNS and SendGrid headers', async () => {
      const provider = mailBouncesProvider({ ...options, sendgridPublicKey: publicKey });
      const delivery = sendgridDelivery(privateKey, SENDGRID_EVENTS);
      assert.match(await refusal(provider, { ...delivery, headers: { ...delivery.headers, 'x-amz-sns-message-type': 'Notification' } }), /both/);
    });
  });
});
