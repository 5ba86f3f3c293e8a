import type { IncomingHttpHeaders } from 'node:http';
import { inTransaction, type Db } from '../../core/db.ts';
import { notFound } from '../../core/errors.ts';
import { RateLimiter } from '../../core/rate-limiter.ts';
import type { TriggerData } from './actions.ts';
import type { AutomationService } from './automations.service.ts';
import { checkSignature } from './hook-signature.ts';
import { RATE_COUNTERS } from './rate-limit.ts';
import type { RunService } from './runs.service.ts';
import type { TriggerListener } from './triggers.ts';

interface Deps {
  db: Db;
  automations: () => AutomationService;
  runs: () => RunService;
  triggers: () => TriggerListener;
  perMinute: number;
}

/** `POST /hooks/{token}`: the token names an enabled inbound_webhook automation; the post's JSON body starts a run. */
export class InboundHooks {
  private readonly limiter: RateLimiter;

  constructor(private readonly deps: Deps) {
    this.limiter = new RateLimiter(deps.db, RATE_COUNTERS);
  }

  async receive(token: string, body: unknown, rawBody: string | undefined, headers: IncomingHttpHeaders): Promise<{ run_id: string }> {
    const automation = await this.deps.automations().byHookToken(token);
    // A disabled automation's hook answers like an unknown one: a sender learns nothing it could retry against.
    if (!automation?.enabled) throw notFound('No inbound hook answers at this address.');
    // Counted before the signature is checked: what is limited is asking, so a flood of bad signatures is limited too.
    await this.limiter.hit([{ key: `hook:${token}`, max: this.deps.perMinute }], 1);
    checkSignature(automation.hook_secret, headers, rawBody ?? '');
    const trigger: TriggerData = { type: 'inbound_webhook', record_id: null, event_id: null, before: null, after: null, body, depth: 0, chain: [] };
    const canceled = this.deps.triggers().refusal(automation, trigger);
    const [runId] = await inTransaction(this.deps.db, (trx) => this.deps.runs().start(trx, [{ automationId: automation.id, workspaceId: automation.workspace_id, trigger, canceled }]));
    return { run_id: runId };
  }
}
