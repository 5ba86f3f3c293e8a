import { Type, type Static } from '../../core/schema.ts';
import type { OutboundPoster } from '../webhooks/public.ts';
import { StepFailed, type ActionContext, type ActionDefinition } from './actions.ts';

const SendWebhook = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'http or https; loopback, private, link-local and multicast targets are refused unless `webhooks.allowPrivateNetworks` is set.' }),
    body: Type.Optional(Type.Unknown({ description: 'Any JSON, placeholders filled; without it `{ automation_id, run_id, trigger, record }`.' })),
  },
  { additionalProperties: false },
);
type SendWebhook = Static<typeof SendWebhook>;

/** What is posted: the configured body, or what the run is about. */
function bodyOf(ctx: ActionContext<SendWebhook>): unknown {
  if (ctx.config.body !== undefined) return ctx.config.body;
  const { type, record_id, event_id, before, after } = ctx.trigger;
  return { automation_id: ctx.automationId, run_id: ctx.runId, trigger: { type, record_id, event_id, before, after }, record: after };
}

/**
 * `send_webhook`: POSTs JSON through the webhooks plugin's guarded client (no redirects, a timeout, the SSRF policy
 * checked at save and at connect). Unsigned: an automation has no secret of its own to sign with. Retry-safe: a
 * receiver may see a POST twice, as with any webhook.
 */
export function webhookAction(outbound: () => OutboundPoster): ActionDefinition<SendWebhook> {
  return {
    type: 'send_webhook',
    schema: SendWebhook,
    retrySafe: true,
    async check(req) {
      // A URL built from placeholders is only known at run time: the connect-time guard covers it then.
      if (req.config.url.includes('{{')) return;
      const refusal = await outbound().refusal(req.config.url);
      if (refusal) req.errors.push({ pointer: `${req.pointer}/url`, detail: refusal });
    },
    async run(ctx) {
      const result = await outbound().post(ctx.config.url, bodyOf(ctx));
      if (!result.ok) throw new StepFailed(`The webhook was not accepted: ${result.error}.`);
      return { status: result.status, duration_ms: result.durationMs };
    },
    dryRun: async (ctx) => ({ url: ctx.config.url, body: bodyOf(ctx) }),
  };
}
