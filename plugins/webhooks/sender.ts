import type { Logger } from 'pino';
import type { DeliveryService } from './deliveries.service.ts';
import type { WebhookClient } from './http-client.ts';
import { signedHeaders } from './signing.ts';

/**
 * Sends due deliveries through up to `concurrency` lanes. A lane claims one delivery, sends it, settles it, and goes on
 * until nothing is due; a lane that found work starts another (up to the limit), so a burst fans out at once while an
 * idle instance asks once per wake. One slow receiver holds one lane, never the others. Woken after a commit that
 * queued deliveries, and every `pollMs` for retries that fell due.
 */
export class DeliverySender {
  private running = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly lanes = new Set<Promise<void>>();

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
    await Promise.all(this.lanes);
    this.client.close();
  }

  wake(): void {
    if (!this.running || this.lanes.size >= this.opts.concurrency) return;
    const lane: Promise<void> = this.lane().finally(() => this.lanes.delete(lane));
    this.lanes.add(lane);
  }

  private async lane(): Promise<void> {
    try {
      while (this.running) {
        const [delivery] = await this.deliveries().claim(1);
        if (!delivery) return;
        this.wake();
        const result = await this.client.post(delivery.url, signedHeaders(delivery.secret, delivery.message_id, delivery.body), delivery.body);
        await this.deliveries().settle(delivery, result);
      }
    } catch (err) {
      // The claimed delivery's lease runs out and another lane takes it again.
      this.opts.logger.error({ err }, 'webhook delivery failed; will retry');
    }
  }
}
