import { afterCommit, type Db } from '../../core/db.ts';
import type { MailMessage } from './types.ts';

export const DELIVER_JOB = 'deliver';

/**
 * The one way plugins send mail: `send` queues a job, in the caller's transaction when given,
 * so a message goes out only if the write that caused it commits; the job delivers it and
 * is retried when the provider fails.
 */
export class MailSender {
  constructor(
    private readonly enqueue: (data: { message: MailMessage }, trx?: Db) => Promise<unknown>,
    private readonly wakeWorker: () => void,
  ) {}

  async send(message: MailMessage, trx?: Db): Promise<void> {
    const to = message.to?.trim();
    // A message without a recipient would only fail, retry after retry.
    if (!to) throw new TypeError('mail.sender: a message needs a recipient (`to`).');
    const queued: MailMessage = {
      to,
      // Line breaks have no place in a header; user-given text (a workspace name) may carry some.
      subject: message.subject.replace(/\s*[\r\n]+\s*/g, ' '),
      text: message.text,
      ...(message.html !== undefined ? { html: message.html } : {}),
    };
    await this.enqueue({ message: queued }, trx);
    afterCommit(trx, this.wakeWorker);
  }
}
