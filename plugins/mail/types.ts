/** One message as plugins hand it to `mail.sender`: plain text always, HTML optionally. */
export interface MailMessage {
  /** One recipient address, e.g. `ann@example.com` or `Ann <ann@example.com>`. */
  to: string;
  subject: string;
  text: string;
  html?: string;
  /**
   * Headers of the caller's own, by name (`List-Unsubscribe`, `List-Unsubscribe-Post`). Those the message is made of
   * (From, To, Subject, Date, Message-ID, MIME and Content-* headers…) are refused, and so is a line break in a value.
   */
  headers?: Record<string, string>;
}

/** Which delivery this is: the same across retries of one message, so a provider can drop duplicates. */
export interface Delivery {
  id: string;
}

/**
 * What a plugin adds to `hooks.providers.for('mail')`. `send` resolves once the message is
 * handed over (accepted by the relay, stored, posted to an API) and rejects otherwise; a
 * rejection is retried later with the same `delivery.id`.
 */
export interface MailProvider {
  send(message: MailMessage, delivery: Delivery): Promise<void>;
}
