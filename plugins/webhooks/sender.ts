import type { Logger } from 'pino';
import { LEASE_SECONDS, type Claimed, type DeliveryService } from './deliveries.service.ts';
import type { AttemptResult, WebhookClient } from './http-client.ts';
import { signedHeaders } from './signing.ts';
import type { RequestLoad } from '../../core/request-load.ts';

/** How long a success waits to be recorded with others. */
const FLUSH_MS = 20;
/** New deliveries held in memory, handed over by the fan-out; more than that are left in the table to be claimed. */
const HANDOFF_MAX = 1000;
/** How long the instance must have answered no request before deliveries that can still wait go out. */
const QUIET_MS = 20;

/**
 * Sends due deliveries, at most `concurrency` at once, yielding to requests: a delivery waits while this instance is
 * answering requests (until it has been quiet for 20 ms), for at most `maxDelayMs` after it fell due. On a machine
 * of few cores an attempt taken while a write runs slows that write far more than its own CPU (the write's round
 * trips to the database each wait for a core); a burst of writes is answered first and its deliveries follow it,
 * while under sustained load they trail the writes by `maxDelayMs`.
 *
 * New deliveries are handed over by the fan-out that made them, already leased to this sender; others (retries, or more
 * than it holds) are claimed in batches to fill the free slots. Each one is sent on its own, so one slow receiver holds
 * one slot, never the others; the slots are refilled once half of them are free, and successes are recorded together every few milliseconds: under load the database sees a few
 * statements per batch rather than several per delivery, leaving more of it to the writes. A
 * success not yet recorded when the process dies is sent again after its lease (at least once). Woken after a commit
 * that queued deliveries, and every `pollMs` for retries that fell due.
 */
export class DeliverySender {
  private running = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  /** Handed-over deliveries waiting for a slot, with when they were taken. */
  private readonly handed: Array<{ claimed: Claimed; at: number }> = [];
  private filling: Promise<void> | null = null;
  private again = false;
  private successes: Array<{ claimed: Claimed; result: AttemptResult }> = [];
  private flushing: Promise<void> = Promise.resolve();
  private flushTimer: NodeJS.Timeout | null = null;
  /** Looks again at held deliveries once the instance may have become quiet. */
  private recheck: NodeJS.Timeout | null = null;

  constructor(
    private readonly deliveries: () => DeliveryService,
    private readonly client: WebhookClient,
    private readonly load: () => RequestLoad,
    private readonly opts: { pollMs: number; concurrency: number; timeoutMs: number; maxDelayMs: number; logger: Logger },
  ) {}

  /** How many more deliveries the fan-out may hand over. */
  room(): number {
    return this.running ? Math.max(0, HANDOFF_MAX - this.handed.length) : 0;
  }

  /** Deliveries made leased to this sender, after their commit: sent without a claim. */
  take(claimed: Claimed[]): void {
    const at = Date.now();
    for (const delivery of claimed) this.handed.push({ claimed: delivery, at });
    this.wake();
  }

  start(): void {
    this.running = true;
    this.timer = setInterval(() => this.wake(), this.opts.pollMs);
    this.timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    if (this.recheck) clearTimeout(this.recheck);
    await this.filling;
    await Promise.all(this.inFlight);
    this.flush();
    await this.flushing;
    this.client.close();
  }

  wake(): void {
    if (!this.running) return;
    if (this.filling) {
      this.again = true;
      return;
    }
    this.filling = this.fill().finally(() => {
      this.filling = null;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async fill(): Promise<void> {
    try {
      while (this.running) {
        this.sendHanded();
        const free = this.opts.concurrency - this.inFlight.size;
        if (free <= 0 || this.handed.length > 0) return;
        const claimed = await this.deliveries().claim(free, this.quiet() ? 0 : this.opts.maxDelayMs);
        for (const delivery of claimed) this.send(delivery);
        if (claimed.length < free) return;
      }
    } catch (err) {
      this.opts.logger.error({ err }, 'claiming webhook deliveries failed; will retry');
    }
  }

  private quiet(): boolean {
    return this.opts.maxDelayMs === 0 || this.load().quietFor() >= QUIET_MS;
  }

  /**
   * Fills free slots from the hand-over queue, oldest first, as far as the instance is quiet or they have waited
   * `maxDelayMs`. A delivery whose lease could run out before its attempt ends is left to be claimed again once it
   * has (else another instance could send it at the same time).
   */
  private sendHanded(): void {
    // Stopped: what is held stays leased in the table and is claimed once the lease runs out.
    if (!this.running) return;
    const now = Date.now();
    const stale = now - (LEASE_SECONDS * 1000 - this.opts.timeoutMs - 5000);
    const quiet = this.quiet();
    while (this.inFlight.size < this.opts.concurrency && this.handed.length > 0) {
      const next = this.handed[0];
      if (next.at >= stale && !quiet && now - next.at < this.opts.maxDelayMs) {
        this.recheck ??= setTimeout(() => {
          this.recheck = null;
          this.sendHanded();
        }, QUIET_MS).unref();
        return;
      }
      this.handed.shift();
      if (next.at >= stale) this.send(next.claimed);
    }
  }

  private send(delivery: Claimed): void {
    const sending: Promise<void> = (async () => {
      const result = await this.client.post(delivery.url, signedHeaders(delivery.secret, delivery.message_id, delivery.body), delivery.body);
      if (result.ok) this.succeeded(delivery, result);
      else await this.deliveries().failed(delivery, result);
    })()
      // The delivery's lease runs out and it is claimed again.
      .catch((err: unknown) => this.opts.logger.error({ err, delivery: delivery.id }, 'settling a webhook delivery failed; will retry'))
      .finally(() => {
        this.inFlight.delete(sending);
        if (this.handed.length > 0) this.sendHanded();
        else if (this.inFlight.size <= this.opts.concurrency / 2) this.wake();
      });
    this.inFlight.add(sending);
  }

  private succeeded(claimed: Claimed, result: AttemptResult): void {
    this.successes.push({ claimed, result });
    if (this.successes.length >= this.opts.concurrency) this.flush();
    else this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  private flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const batch = this.successes;
    this.successes = [];
    if (batch.length === 0) return;
    this.flushing = this.flushing
      .then(() => this.deliveries().succeeded(batch))
      // Their leases run out and they are sent again: at least once.
      .catch((err: unknown) => this.opts.logger.error({ err, deliveries: batch.length }, 'recording webhook deliveries failed; they will be sent again'));
  }
}
