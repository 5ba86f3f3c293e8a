import type { IncomingHttpHeaders } from 'node:http';
import { inTransaction, type Db } from '../../core/db.ts';
import { AppError, notFound } from '../../core/errors.ts';
import { RateLimiter } from '../../core/rate-limiter.ts';
import type { TriggerData } from './actions.ts';
import type { AutomationService } from './automations.service.ts';
import { HookSeen } from './hook-seen.ts';
import { checkSignature, type SignedPost } from './hook-signature.ts';
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

/** What a post came to: a new run, or (`replayed`) the run an earlier post with its `webhook-id` started. */
export interface HookReceipt {
  run_id: string;
  replayed: boolean;
}

/** `POST /hooks/{token}`: the token names an enabled inbound_webhook automation; the post's JSON body starts a run. */
export class InboundHooks {
  private readonly limiter: RateLimiter;
  readonly seen: HookSeen;

  constructor(private readonly deps: Deps) {
    this.limiter = new RateLimiter(deps.db, RATE_COUNTERS);
    this.seen = new HookSeen(deps.db);
  }

  async receive(token: string, body: unknown, rawBody: string | undefined, headers: IncomingHttpHeaders, source: string): Promise<HookReceipt> {
    const automation = await this.deps.automations().byHookToken(token);
    // A disabled automation's hook answers like an unknown one: a sender learns nothing it could retry against.
    if (!automation?.enabled) throw notFound('No inbound hook answers at this address.');
    const signed = await this.verified(token, automation.hook_secret, headers, rawBody ?? '', source);
    if (signed) {
      const earlier = await this.seen.run(automation.id, signed);
      if (earlier) return { run_id: earlier, replayed: true };
    }
    // Signed and unsigned posts each have a budget of their own: whoever holds only the URL cannot spend the signer's.
    await this.limiter.hit([{ key: `hook:${signed ? 'signed' : 'unsigned'}:${token}`, max: this.deps.perMinute }], 1);
    const trigger: TriggerData = { type: 'inbound_webhook', record_id: null, event_id: null, before: null, after: null, body, depth: 0, chain: [] };
    const canceled = this.deps.triggers().refusal(automation, trigger);
    const runId = await inTransaction(this.deps.db, async (trx) => {
      if (signed && !(await this.seen.claim(trx, automation.id, signed))) return undefined;
      const [id] = await this.deps.runs().start(trx, [{ automationId: automation.id, workspaceId: automation.workspace_id, trigger, canceled }], { refuseOverLimit: true });
      if (signed) await this.seen.ran(trx, automation.id, signed, id);
      return id;
    });
    if (runId) return { run_id: runId, replayed: false };
    // A twin of this post, received at the same moment, claimed its id first: its run is this post's.
    return { run_id: (await this.seen.run(automation.id, signed!))!, replayed: true };
  }

  /**
   * The signed post, or undefined for an unsigned one. A bad signature counts against its source's own budget (429 once
   * spent, else 401), never the hook's: a flood of forgeries slows the forger, not the sender who signs.
   */
  private async verified(token: string, secret: string, headers: IncomingHttpHeaders, rawBody: string, source: string): Promise<SignedPost | undefined> {
    try {
      return checkSignature(secret, headers, rawBody);
    } catch (err) {
      if (err instanceof AppError) await this.limiter.hit([{ key: `hook:refused:${token}:${source}`, max: this.deps.perMinute }], 1);
      throw err;
    }
  }
}
