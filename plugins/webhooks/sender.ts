import type { Logger } from 'pino';
import type { Claimed, DeliveryService } from './deliveries.service.ts';
import type { AttemptResult, WebhookClient } from './http-client.ts';
import { signedHeaders } from './signing.ts';

/** How long a success waits to be recorded with others. */
const FLUSH_MS = 20;

/**
 * Sends due deliveries, at most `concurrency` at once. Deliveries are claimed in batches to fill the free slots and
 * each one is sent on its own, so one slow receiver holds one slot, never the others; the slots are refilled once half
 * of them are free, and successes are recorded together every few milliseconds: under load the database sees a few
 * statements per batch rather than several per delivery, leaving more of it to the writes. A
 * success not yet recorded when the process dies is sent again after its lease (at least once). Woken after a commit
 * that queued deliveries, and every `pollMs` for retries that fell due.
 */
export class DeliverySender {
  private running = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private filling: Promise<void> | null = null;
  private again = false;
  private successes: Array<{ claimed: Claimed; result: AttemptResult }> = [];
  private flushing: Promise<void> = Promise.resolve();
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deliveries: () => DeliveryService,
    private readonly client: WebhookClient,
    private readonly opts: { pollMs: number; concurrency: number; logger: Logger },
  ) {}

  start(): void {
    this.running = true;
    this.timer = setInterval(() => this.wake(), this.opts.pollMs);
    this.timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
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
        const free = this.opts.concurrency - this.inFlight.size;
        if (free <= 0) return;
        const claimed = await this.deliveries().claim(free);
        for (const delivery of claimed) this.send(delivery);
        if (claimed.length < free) return;
      }
    } catch (err) {
      this.opts.logger.error({ err }, 'claiming webhook deliveries failed; will retry');
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
        if (this.inFlight.size <= this.opts.concurrency / 2) this.wake();
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
