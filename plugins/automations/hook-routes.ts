import { KernelErrors } from '../../core/errors.ts';
import { defineRoute, Reply, type AnyRouteDef } from '../../core/routes.ts';
import { AutomationErrors } from './errors.ts';
import { HookBody, HookParams, RunStarted } from './schemas.ts';
import { UsageErrors } from '../../core/usage.ts';

/** The inbound hook: public (the token is the credential), its body capped at `maxBytes`. */
export function hookRoutes(maxBytes: number): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/hooks/{token}',
      operationId: 'automations.hooks.receive',
      summary: "Start an inbound_webhook automation's run with a JSON body",
      description:
        'No credential: the token in the URL names an enabled `inbound_webhook` automation (unknown, rotated or disabled → 404). ' +
        'A post signed Standard-Webhooks style (`webhook-id`, `webhook-timestamp`, `webhook-signature`, with the hook secret) is checked: a bad signature or a timestamp more than 5 minutes off → 401; an unsigned post is accepted. ' +
        'A signed post whose `webhook-id` was received while its timestamp is still in that window (a replay, or a retry) → 200 with the first post\'s `run_id`, and nothing runs again. ' +
        'JSON only (415 otherwise), at most `hookMaxBytes` (413). `hookRequestsPerMinute` per token for signed posts, as many again for unsigned ones, and as many bad signatures per client address (429 with Retry-After): ' +
        'unsigned or forged posts never spend what a signing sender may post. Actions read the body as `{{trigger.body.<path>}}`.',
      tags: ['automations'],
      auth: 'public',
      params: HookParams,
      body: HookBody,
      rawBody: true,
      bodyLimit: maxBytes,
      example: { order: { id: 'A-1001', total: 42 } },
      status: 202,
      responses: {
        200: { description: 'A replay of a signed post already received: its run, started once', schema: RunStarted },
        202: { description: 'The run, queued', schema: RunStarted },
      },
      errors: [UsageErrors.plan_limit_exceeded, AutomationErrors.bad_signature, KernelErrors.rate_limited],
      handler: async ({ params, body, rawBody, ctx, resolve }) => {
        const receipt = await resolve('automations.hooks').receive(params.token, body, rawBody, ctx.headers, ctx.ip);
        return new Reply(receipt.replayed ? 200 : 202, { run_id: receipt.run_id });
      },
    }),
  ];
}
