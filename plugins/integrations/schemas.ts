import { Type, type Static } from '../../core/schema.ts';
import { pageOf, pageQuery } from '../../core/pagination.ts';
import { CATEGORIES } from './hooks.ts';

export const IntegrationsOptions = Type.Object(
  {
    maxDeliveryBytes: Type.Optional(
      Type.Integer({ minimum: 1024, maximum: 26214400, default: 5242880, description: 'Largest inbound delivery a receiver reads (GitHub sends up to 25 MB); past it, 413.' }),
    ),
    deliveryRetentionDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, default: 30, description: 'Deliveries older than this many days leave the inbox (a daily job).' })),
  },
  { additionalProperties: false },
);
export type IntegrationsOptions = Static<typeof IntegrationsOptions>;

const Uuid = Type.String({ format: 'uuid' });
export const ProviderId = Type.String({ pattern: '^[a-z][a-z0-9-]{0,62}$' });
export const WorkspaceParams = Type.Object({ ws: Uuid });
export const ConnectionParams = Type.Object({ ws: Uuid, id: Uuid });
export const DeliveryParams = Type.Object({ ws: Uuid, id: Uuid, did: Uuid });
export const ReceiverParams = Type.Object({ provider: ProviderId, connection_id: Uuid });
export const ListQuery = pageQuery();
export const ProviderParams = Type.Object({ provider: ProviderId });
export const CallbackQuery = Type.Object({
  state: Type.String({ minLength: 1, maxLength: 512, description: 'The one-time state of the authorize URL.' }),
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  error: Type.Optional(Type.String({ maxLength: 256, description: 'Set by the provider when the user did not grant access.' })),
  error_description: Type.Optional(Type.String({ maxLength: 2048 })),
  scope: Type.Optional(Type.String({ maxLength: 4096 })),
  iss: Type.Optional(Type.String({ maxLength: 2048 })),
});

const Field = Type.Object({ name: Type.String(), label: Type.String(), secret: Type.Boolean() });
export const Integration = Type.Object({
  id: Type.String(),
  name: Type.String(),
  categories: Type.Array(Type.Union(CATEGORIES.map((c) => Type.Literal(c)))),
  auth: Type.Object({ type: Type.Union([Type.Literal('oauth2'), Type.Literal('api_key'), Type.Literal('none')]), fields: Type.Array(Field) }),
  capabilities: Type.Array(Type.Union([Type.Literal('webhooks'), Type.Literal('actions'), Type.Literal('sources')])),
  events: Type.Array(Type.String(), { description: 'What its inbound deliveries become: `integration.<provider>.<event>`.' }),
  configured: Type.Boolean({ description: 'Ready to connect: an OAuth provider only once its client id and secret are set.' }),
});
export type Integration = Static<typeof Integration>;
export const IntegrationList = Type.Object({ data: Type.Array(Integration) });

export const CONNECTION_STATUSES = ['pending', 'active', 'needs_reauth', 'revoked'] as const;
export const Connection = Type.Object({
  id: Uuid,
  workspace_id: Uuid,
  provider: Type.String(),
  name: Type.String(),
  status: Type.Union(CONNECTION_STATUSES.map((s) => Type.Literal(s))),
  account: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()], { description: 'Whose account the credentials are, as the provider told when tested.' }),
  scopes: Type.Array(Type.String()),
  webhook_url: Type.Union([Type.String(), Type.Null()], { description: "Where the provider sends its deliveries (null for a provider that sends none)." }),
  created_by: Type.Union([Uuid, Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type Connection = Static<typeof Connection>;
export const CreatedConnection = Type.Composite([
  Connection,
  Type.Object({
    webhook_secret: Type.Optional(Type.String({ description: 'The signing secret to register at the provider: shown in this answer only.' })),
    authorize_url: Type.Optional(Type.String({ description: 'OAuth providers: where to send the user to grant access.' })),
  }),
]);
export type CreatedConnection = Static<typeof CreatedConnection>;
export const ConnectionList = pageOf(Connection);

export const CreateConnectionBody = Type.Object(
  {
    provider: ProviderId,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    credentials: Type.Optional(
      Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_]{0,62}$' }), Type.String({ minLength: 1, maxLength: 8192 }), {
        description: "The provider's `auth.fields`, each a non-empty string; tested with the provider before anything is stored.",
      }),
    ),
    webhook_secret: Type.Optional(
      Type.String({ minLength: 16, maxLength: 256, description: 'The signing secret the provider was (or will be) given; a random one is made when left out.' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateConnectionBody = Static<typeof CreateConnectionBody>;

export const PatchConnectionBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    credentials: Type.Optional(
      Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_]{0,62}$' }), Type.String({ minLength: 1, maxLength: 8192 }), {
        description: "New credentials of an API-key provider (all of its `auth.fields`), tested with the provider first; the connection is `active` again once they pass.",
      }),
    ),
    webhook_secret: Type.Optional(
      Type.String({ minLength: 16, maxLength: 256, description: 'The signing secret the provider now uses (rotated there, or shown by it only once its webhook exists).' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchConnectionBody = Static<typeof PatchConnectionBody>;

export const TestResult = Type.Object({ ok: Type.Boolean(), detail: Type.String() });

export const DELIVERY_STATUSES = ['received', 'processed', 'failed'] as const;
export const Delivery = Type.Object({
  id: Uuid,
  provider: Type.String(),
  delivery_id: Type.Union([Type.String(), Type.Null()], { description: "The provider's own id of the delivery." }),
  event: Type.String(),
  status: Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s))),
  error: Type.Union([Type.String(), Type.Null()]),
  received_at: Type.String({ format: 'date-time' }),
});
export type Delivery = Static<typeof Delivery>;
export const DeliveryList = pageOf(Delivery);
export const Accepted = Type.Object({ id: Uuid, status: Type.String() });
