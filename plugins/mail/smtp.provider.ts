import { createTransport } from 'nodemailer';
import { StartupError } from '../../core/errors.ts';
import type { SmtpOptions } from './options.ts';
import type { Delivery, MailMessage, MailProvider } from './types.ts';

/** Delivers through an SMTP relay (nodemailer); one connection per message, so nothing stays open between sends or at shutdown. */
export class SmtpProvider implements MailProvider {
  private readonly transport: ReturnType<typeof createTransport>;
  private readonly messageIdDomain: string;

  constructor(options: SmtpOptions, private readonly from: string | undefined) {
    if (!options.url && !options.host) throw new StartupError('Mail option "smtp" needs "url" or "host".', 'config_invalid', ['mail']);
    if (!from) throw new StartupError('Mail option "from" is required to send through SMTP, e.g. "Tessera <no-reply@example.com>".', 'config_invalid', ['mail']);
    this.transport = createTransport({
      url: options.url,
      host: options.host,
      port: options.port,
      secure: options.secure,
      requireTLS: options.requireTLS,
      auth: options.user ? { user: options.user, pass: options.password } : undefined,
      tls: options.rejectUnauthorized === false ? { rejectUnauthorized: false } : undefined,
    });
    this.messageIdDomain = /@([^\s>]+)>?\s*$/.exec(from)?.[1] ?? 'tessera.invalid';
  }

  async send(message: MailMessage, delivery: Delivery): Promise<void> {
    await this.transport.sendMail({
      from: this.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      headers: message.headers,
      // The same Message-ID on every retry lets receiving servers and clients drop a duplicate.
      messageId: `<${delivery.id}@${this.messageIdDomain}>`,
    });
  }
}
