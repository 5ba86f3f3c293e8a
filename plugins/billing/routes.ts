import { KernelErrors } from '../../core/errors.ts';
import { pageOf } from '../../core/pagination.ts';
import { defineRoute, Reply, type AnyRouteDef } from '../../core/routes.ts';
import { BillingErrors } from './errors.ts';
import { AutoReloadBody, Billing, CheckoutBody, LedgerEntry, LedgerQuery, PortalBody, ProviderParams, SessionUrl, Usage, WebhookReceipt, WorkspaceParams } from './schemas.ts';

const tags = ['billing'];
const admin = { role: 'admin' } as const;

export function billingRoutes(maxEventBytes: number): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/billing',
      operationId: 'billing.get',
      summary: "The workspace's plan, trial, seats and AI credits",
      description: 'Without a payment provider configured: `{ enabled: false, plan: "self_hosted" }` and nothing is limited. Workspace admins only.',
      tags,
      auth: 'user',
      access: admin,
      params: WorkspaceParams,
      responses: { 200: { description: 'The billing state', schema: Billing } },
      handler: ({ params, resolve }) => resolve('billing.service').view(params.ws),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/billing/usage',
      operationId: 'billing.usage',
      summary: "What the workspace uses against its plan's limits, this calendar month for the monthly ones",
      description: '`null` in `limits`: none. Records in the trash do not count; guests take a seat like any member.',
      tags,
      auth: 'user',
      access: admin,
      params: WorkspaceParams,
      responses: { 200: { description: 'Usage and limits', schema: Usage } },
      errors: [BillingErrors.billing_disabled],
      handler: ({ params, resolve }) => resolve('billing.service').usage(params.ws),
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/billing/trial',
      operationId: 'billing.trial',
      summary: 'Start the trial: the trial plan (Pro) for 30 days, once per workspace',
      description: 'At its end the workspace returns to `free`, unless it subscribed meanwhile.',
      tags,
      auth: 'user',
      access: admin,
      scope: 'admin',
      params: WorkspaceParams,
      status: 201,
      responses: { 201: { description: 'The billing state, trialing', schema: Billing } },
      errors: [BillingErrors.billing_disabled, BillingErrors.trial_used, BillingErrors.subscription_exists],
      handler: async ({ params, resolve }) => {
        resolve('billing.service').needEnabled();
        await resolve('billing.subscriptions').startTrial(params.ws);
        return resolve('billing.service').view(params.ws);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/billing/checkout-session',
      operationId: 'billing.checkout',
      summary: "The provider's checkout page for a plan",
      description: 'A workspace in its trial is charged from the trial’s end. A workspace that already pays changes plans in the portal (409).',
      tags,
      auth: 'user',
      access: admin,
      scope: 'admin',
      params: WorkspaceParams,
      body: CheckoutBody,
      example: { plan: 'pro', success_url: 'https://app.example.com/billing/done', cancel_url: 'https://app.example.com/billing' },
      status: 201,
      idempotency: false,
      responses: { 201: { description: 'Where to send the admin', schema: SessionUrl } },
      errors: [BillingErrors.billing_disabled, BillingErrors.plan_not_purchasable, BillingErrors.subscription_exists, BillingErrors.provider_unavailable],
      handler: ({ params, body, resolve }) => {
        resolve('billing.service').needEnabled();
        return resolve('billing.subscriptions').checkout(params.ws, body);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/billing/portal-session',
      operationId: 'billing.portal',
      summary: "The provider's portal: payment methods, invoices, the subscription",
      tags,
      auth: 'user',
      access: admin,
      scope: 'admin',
      params: WorkspaceParams,
      body: PortalBody,
      example: { return_url: 'https://app.example.com/billing' },
      status: 201,
      idempotency: false,
      responses: { 201: { description: 'Where to send the admin', schema: SessionUrl } },
      errors: [BillingErrors.billing_disabled, BillingErrors.provider_unavailable],
      handler: ({ params, body, resolve }) => {
        resolve('billing.service').needEnabled();
        return resolve('billing.subscriptions').portal(params.ws, body.return_url);
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/workspaces/{ws}/billing/ai-credits/auto-reload',
      operationId: 'billing.autoReload',
      summary: 'Buy AI credits automatically when the balance falls below a threshold',
      description:
        'One purchase of `amount` credits at a time, charged to the saved payment method; a failed one notifies the admins and pauses reloading until this is saved again. ' +
        'Saving it while the balance is already below the threshold buys at once.',
      tags,
      auth: 'user',
      access: admin,
      scope: 'admin',
      params: WorkspaceParams,
      body: AutoReloadBody,
      example: { enabled: true, threshold: 100, amount: 1000 },
      responses: { 200: { description: 'The billing state', schema: Billing } },
      errors: [BillingErrors.billing_disabled, BillingErrors.no_customer, BillingErrors.uneven_amount],
      handler: async ({ params, body, resolve }) => {
        resolve('billing.service').needEnabled();
        await resolve('billing.credits').setAutoReload(params.ws, body);
        return resolve('billing.service').view(params.ws);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/billing/ai-credits/ledger',
      operationId: 'billing.ledger',
      summary: 'The AI credit ledger, newest first: grants, lapses, purchases and what agent runs spent',
      tags,
      auth: 'user',
      access: admin,
      params: WorkspaceParams,
      query: LedgerQuery,
      responses: { 200: { description: 'One page of entries', schema: pageOf(LedgerEntry) } },
      errors: [BillingErrors.billing_disabled],
      handler: ({ params, query, resolve }) => {
        resolve('billing.service').needEnabled();
        return resolve('billing.credits').ledger(params.ws, query);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/billing/webhooks/{provider}',
      operationId: 'billing.webhook',
      summary: "The payment provider's events",
      description:
        "No credential: the provider's signature is checked over the raw bytes first (Stripe: `Stripe-Signature`, 300 s tolerance); a missing or wrong one, or a stale timestamp → 401 and nothing is stored. " +
        'Each event id is acted on once (again → 200 with `duplicate`); an event type billing does not use → 200 with `handled: false`. A provider that cannot be reached while the event is read → 502, so it is sent again.',
      tags,
      auth: 'public',
      params: ProviderParams,
      bodyType: 'raw',
      bodyLimit: maxEventBytes,
      responses: { 200: { description: 'Received', schema: WebhookReceipt } },
      errors: [BillingErrors.billing_disabled, BillingErrors.bad_signature, BillingErrors.provider_unavailable, KernelErrors.not_found],
      handler: async ({ params, rawBytes, ctx, resolve }) => {
        resolve('billing.service').needEnabled();
        return new Reply(200, await resolve('billing.webhooks').receive(params.provider, rawBytes ?? Buffer.alloc(0), ctx.headers, Date.now()));
      },
    }),
  ];
}
