import type { Logger } from 'pino';
import type { DeliveryService } from './deliveries.service.ts';
import type { WebhookClient } from './http-client.ts';
import { signedHeaders } from './signing.ts';

/**
 * Sends due deliveries: woken after a commit that queued some, and every `pollMs` for retries that fell due. A pass
 * claims a batch, sends it `concurrency` at a time, settles each attempt, and goes on while batches come back full.
 * Concurrent wakes coalesce into one more pass.
 */
export class DeliverySender {
  private running = false;
  private draining: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;

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
    await this.draining;
    this.client.close();
  }

  wake(): void {
    if (!this.running) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain().finally(() => {
      this.draining = null;
      if (this.again && this.running) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async drain(): Promise<void> {
    const batch = this.opts.concurrency * 4;
    try {
      while (this.running && (await this.pass(batch)) === batch);
    } catch (err) {
      this.opts.logger.error({ err }, 'webhook delivery pass failed; will retry');
    }
  }

  private async pass(batch: number): Promise<number> {
    const claimed = await this.deliveries().claim(batch);
    let next = 0;
    const lane = async () => {
      while (next < claimed.length) {
        const delivery = claimed[next++];
        const result = await this.client.post(delivery.url, signedHeaders(delivery.secret, delivery.message_id, delivery.body), delivery.body);
        await this.deliveries().settle(delivery, result);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.opts.concurrency, claimed.length) }, lane));
    return claimed.length;
  }
}
