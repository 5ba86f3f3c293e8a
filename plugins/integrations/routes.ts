import { KernelErrors } from '../../core/errors.ts';
import { defineRoute, Reply, type AnyRouteDef } from '../../core/routes.ts';
import { IntegrationErrors } from './errors.ts';
import {
  Accepted,
  CallbackQuery,
  ConnectionList,
  ConnectionParams,
  Connection,
  CreateConnectionBody,
  CreatedConnection,
  DeliveryList,
  DeliveryParams,
  IntegrationList,
  ListQuery,
  PatchConnectionBody,
  ProviderParams,
  ReceiverParams,
  TestResult,
  WorkspaceParams,
} from './schemas.ts';

const tags = ['integrations'];
/** Connections act for the workspace with someone's account at a provider: creators and admins manage them. */
const creators = { role: 'creator' as const };

export function integrationRoutes(maxDeliveryBytes: number): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/integrations',
      operationId: 'integrations.list',
      summary: 'The providers of the enabled integration plugins',
      description: 'How each is connected (`auth`: OAuth 2, an API key and its fields, or nothing), what it can do (`capabilities`), the events its deliveries become, and whether it is `configured` (an OAuth provider needs its client id and secret).',
      tags,
      auth: 'user',
      responses: { 200: { description: 'The providers', schema: IntegrationList } },
      handler: ({ resolve }) => {
        const providers = resolve('integrations.providers');
        return { data: providers.all().map((p) => providers.describe(p)) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/connections',
      operationId: 'integrations.connections.create',
      summary: 'Connect a provider',
      description:
        'API-key providers are tested with the provider at once: refused credentials → 422 `connection_failed` with its reason, and nothing is stored. ' +
        'Credentials are sealed (AES-256-GCM) under the instance key and never returned. A provider that signs its deliveries with a shared secret gets `webhook_secret` (the one given, or a new one), shown in this answer only, and `webhook_url` to register at the provider.',
      tags,
      auth: 'user',
      access: creators,
      params: WorkspaceParams,
      body: CreateConnectionBody,
      example: { provider: 'github', name: 'Our GitHub', credentials: { token: 'github_pat_…' } },
      status: 201,
      idempotency: false,
      secret: true,
      responses: { 201: { description: 'The connection (its signing secret shown only here)', schema: CreatedConnection } },
      errors: [IntegrationErrors.connection_failed],
      handler: ({ principal, params, body, resolve }) => resolve('integrations.connections').create(principal, params.ws, body),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/connections',
      operationId: 'integrations.connections.list',
      summary: "The workspace's connections, newest first",
      tags,
      auth: 'user',
      access: creators,
      params: WorkspaceParams,
      query: ListQuery,
      responses: { 200: { description: 'One page of connections', schema: ConnectionList } },
      handler: ({ params, query, resolve }) => resolve('integrations.connections').list(params.ws, query),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/connections/{id}',
      operationId: 'integrations.connections.get',
      summary: 'A connection (never its credentials)',
      tags,
      auth: 'user',
      access: creators,
      params: ConnectionParams,
      responses: { 200: { description: 'The connection', schema: Connection } },
      handler: ({ params, resolve }) => resolve('integrations.connections').get(params.ws, params.id),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/workspaces/{ws}/connections/{id}',
      operationId: 'integrations.connections.update',
      summary: "Rename a connection, or give it new credentials or the provider's new signing secret",
      description:
        'New credentials of an API-key provider are tested with it first: refused → 422 `connection_failed` and nothing changes; accepted → the connection is `active` again. ' +
        'A `webhook_secret` replaces the signing secret (for a provider that shows its secret only once its webhook exists, or after rotating it there); it is never shown back.',
      tags,
      auth: 'user',
      access: creators,
      params: ConnectionParams,
      body: PatchConnectionBody,
      example: { name: 'GitHub (bot account)', credentials: { token: 'github_pat_…' } },
      responses: { 200: { description: 'The connection', schema: Connection } },
      errors: [IntegrationErrors.connection_failed],
      handler: ({ params, body, resolve }) => resolve('integrations.connections').update(params.ws, params.id, body),
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/connections/{id}/test',
      operationId: 'integrations.connections.test',
      summary: "Test a connection's credentials with its provider",
      description: "`ok: false` with the provider's reason when it refuses them or cannot be reached; nothing about the connection changes then.",
      tags,
      auth: 'user',
      access: creators,
      params: ConnectionParams,
      responses: { 200: { description: 'What the provider said', schema: TestResult } },
      handler: ({ params, resolve }) => resolve('integrations.connections').test(params.ws, params.id),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/workspaces/{ws}/connections/{id}',
      operationId: 'integrations.connections.delete',
      summary: 'Delete a connection, its credentials and its inbox',
      description: 'Its receiver answers 404 from then on.',
      tags,
      auth: 'user',
      access: creators,
      params: ConnectionParams,
      responses: { 204: { description: 'Deleted' } },
      handler: ({ params, resolve }) => resolve('integrations.connections').delete(params.ws, params.id),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/connections/{id}/deliveries',
      operationId: 'integrations.deliveries.list',
      summary: "A connection's inbox of received deliveries, newest first",
      description: '`received` until its event `integration.<provider>.<event>` has been handed to automations and webhooks, then `processed`.',
      tags,
      auth: 'user',
      access: creators,
      params: ConnectionParams,
      query: ListQuery,
      responses: { 200: { description: 'One page of deliveries', schema: DeliveryList } },
      handler: ({ params, query, resolve }) => resolve('integrations.inbox').list(params.ws, params.id, query),
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/connections/{id}/deliveries/{did}/replay',
      operationId: 'integrations.deliveries.replay',
      summary: 'Tell a received delivery again',
      description: 'Its event is told again with what the provider sent, as if it had just come.',
      tags,
      auth: 'user',
      access: creators,
      params: DeliveryParams,
      status: 202,
      responses: { 202: { description: 'The delivery, queued again', schema: Accepted } },
      handler: ({ params, resolve }) => resolve('integrations.inbox').replay(params.ws, params.id, params.did),
    }),
    defineRoute({
      method: 'GET',
      path: '/integrations/{provider}/oauth/callback',
      operationId: 'integrations.oauth.callback',
      summary: "Completes an OAuth connection with the provider's code",
      description:
        "Where the provider sends the user back after `authorize_url`. The state is spent once and must be this provider's and the signed-in user's own: " +
        'unknown, expired, reused or someone else\'s → 400 and nothing changes. The code is traded for tokens (PKCE), sealed like any credential; the connection becomes `active`. ' +
        'A provider that answers `error` (access not granted), or refuses the code → 422 `connection_failed`, and the connection stays `pending`.',
      tags,
      auth: 'user',
      params: ProviderParams,
      query: CallbackQuery,
      responses: { 200: { description: 'The connection, active', schema: Connection } },
      errors: [IntegrationErrors.connection_failed, IntegrationErrors.bad_state],
      handler: ({ principal, params, query, resolve }) => resolve('integrations.oauth').complete(principal, params.provider, query),
    }),
    defineRoute({
      method: 'POST',
      path: '/integrations/{provider}/webhook/{connection_id}',
      operationId: 'integrations.receive',
      summary: "A provider's delivery to a connection",
      description:
        "No credential: the provider's signature is checked over the raw bytes before anything is read (each provider's scheme is in its plugin's README). " +
        'A missing or wrong signature, or a timestamp outside the provider\'s window → 401 and nothing is stored; an unknown connection, or one of another provider → 404. ' +
        'Accepted → 202 with the inbox entry; a delivery whose provider id was received before → 200 with the first one, and nothing is done again. ' +
        `Any media type, at most \`integrations.maxDeliveryBytes\` (413).`,
      tags,
      auth: 'public',
      params: ReceiverParams,
      bodyType: 'raw',
      bodyLimit: maxDeliveryBytes,
      status: 202,
      responses: {
        200: { description: 'A delivery received before, or the answer to a provider challenge', schema: Accepted },
        202: { description: 'Stored in the inbox; its event is told', schema: Accepted },
      },
      errors: [IntegrationErrors.bad_signature, KernelErrors.not_found],
      handler: async ({ params, rawBytes, ctx, resolve }) => {
        const receipt = await resolve('integrations.inbox').receive(params.provider, params.connection_id, rawBytes ?? Buffer.alloc(0), ctx.headers);
        return new Reply(receipt.status, receipt.body ?? '');
      },
    }),
  ];
}
