import { checkTarget, RefusedTarget, WebhookClient, type AttemptResult, type ClientOptions } from './http-client.ts';

/**
 * `webhooks.outbound`: one JSON POST for another plugin (automations' `send_webhook`), through the same guarded client
 * as deliveries, so the instance's one SSRF policy (`webhooks.allowPrivateNetworks`) covers every request Tessera
 * makes to a URL a user gave.
 */
export class OutboundPoster {
  private readonly client: WebhookClient;

  constructor(private readonly opts: ClientOptions) {
    this.client = new WebhookClient(opts);
  }

  /** Why a URL would be refused as it is saved (scheme, credentials, forbidden address or name), or null. */
  async refusal(url: string): Promise<string | null> {
    try {
      await checkTarget(url, this.opts);
      return null;
    } catch (err) {
      if (err instanceof RefusedTarget) return err.message;
      throw err;
    }
  }

  /** Never throws: a refusal at connect time, a timeout or a non-2xx answer is an unsuccessful result. */
  post(url: string, body: unknown): Promise<AttemptResult> {
    return this.client.post(url, { 'content-type': 'application/json' }, JSON.stringify(body));
  }

  close(): void {
    this.client.close();
  }
}
