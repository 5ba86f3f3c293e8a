import { Type, type Static } from '../../core/schema.ts';
import { pageOf, pageQuery } from '../../core/pagination.ts';

export const WebhooksOptions = Type.Object(
  {
    allowPrivateNetworks: Type.Optional(
      Type.Boolean({ default: false, description: 'Let webhooks target loopback, private, link-local and multicast addresses (tests, on-premise receivers). Off: refused at save and at connect time.' }),
    ),
    disableAfterFailures: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000, default: 20, description: 'Consecutive failed attempts after which a webhook is disabled and its workspace admins notified.' })),
    retryScale: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 1, default: 1, description: 'Multiplies the retry schedule (5 s … 24 h). 1 in production; tests compress the clock with a small value.' }),
    ),
    pollMs: Type.Optional(Type.Integer({ minimum: 10, maximum: 60000, default: 1000, description: 'How often the sender looks for due retries (new deliveries wake it at once).' })),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 256, default: 16, description: 'Deliveries sent at once by one instance.' })),
    deliveryRetentionDays: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3650, default: 30, description: 'Settled deliveries (succeeded, or failed for good) older than this many days are deleted from the log by a daily job.' }),
    ),
    maxDelayMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 600000,
        default: 10000,
        description: 'How long a due delivery may wait while this instance answers requests (deliveries yield to requests and go once it has been quiet for 20 ms). 0: sent at once.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type WebhooksOptions = Static<typeof WebhooksOptions>;

const Uuid = Type.String({ format: 'uuid' });
export const WorkspaceParams = Type.Object({ ws: Uuid });
export const WebhookParams = Type.Object({ ws: Uuid, id: Uuid });
export const DeliveryParams = Type.Object({ ws: Uuid, id: Uuid, did: Uuid });

export const EVENT_NAME = '^(\\*|[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+)$';
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'http or https; loopback, private, link-local and multicast targets are refused unless `webhooks.allowPrivateNetworks` is set.' });
const Events = Type.Array(Type.String({ pattern: EVENT_NAME, maxLength: 128 }), {
  minItems: 1,
  maxItems: 64,
  uniqueItems: true,
  description: 'Exact event names (`record.created`, `record.updated`, `record.deleted`, `record.restored`, `comment.created`, …) or `*` for every event of the workspace.',
});

export const CreateWebhookBody = Type.Object(
  {
    url: Url,
    events: Events,
    enabled: Type.Optional(Type.Boolean({ default: true })),
    database_id: Type.Optional(Type.Union([Uuid, Type.Null()], { description: 'Only events of this database (those whose payload names it).' })),
  },
  { additionalProperties: false },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const PatchWebhookBody = Type.Object(
  { url: Type.Optional(Url), events: Type.Optional(Events), enabled: Type.Optional(Type.Boolean({ description: 'true re-enables a disabled webhook and clears `disabled_reason`.' })) },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchWebhookBody = Static<typeof PatchWebhookBody>;

export const Webhook = Type.Object({
  id: Uuid,
  workspace_id: Uuid,
  url: Type.String(),
  events: Type.Array(Type.String()),
  database_id: Type.Union([Uuid, Type.Null()]),
  enabled: Type.Boolean(),
  disabled_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the webhook was disabled automatically (410 Gone, repeated failures); null otherwise.' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type Webhook = Static<typeof Webhook>;

export const CreatedWebhook = Type.Composite([Webhook, Type.Object({ secret: Type.String({ description: '`whsec_` + base64 of 32 random bytes. Shown here only, never again.' }) })]);
export type CreatedWebhook = Static<typeof CreatedWebhook>;

export const Delivery = Type.Object({
  id: Uuid,
  webhook_id: Uuid,
  event_id: Type.String({ description: 'The domain event delivered.' }),
  event_type: Type.String(),
  message_id: Type.String({ description: 'The `webhook-id` header: the same on every attempt and redelivery of this event to this webhook.' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  attempt: Type.Integer({ description: 'Attempts made so far.' }),
  response_code: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  duration_ms: Type.Union([Type.Integer(), Type.Null()]),
  next_retry_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the next attempt is due, while pending.' }),
  created_at: Type.String({ format: 'date-time' }),
});
export type Delivery = Static<typeof Delivery>;

export const WebhookList = pageOf(Webhook);
export const DeliveryList = pageOf(Delivery);
export const ListQuery = pageQuery();

export const Sample = Type.Object({
  url: Type.String(),
  body: Type.String({ description: 'The exact bytes that would be POSTed.' }),
  headers: Type.Object({ 'content-type': Type.String(), 'webhook-id': Type.String(), 'webhook-timestamp': Type.String(), 'webhook-signature': Type.String() }),
  signature: Type.String({ description: 'The `webhook-signature` value a verifier must compute from the body, the id, the timestamp and the secret.' }),
});
export type Sample = Static<typeof Sample>;
