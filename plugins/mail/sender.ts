import { afterCommit, type Db } from '../../core/db.ts';
import type { MailMessage } from './types.ts';

export const DELIVER_JOB = 'deliver';

/** RFC 5322 field names: printable ASCII but the colon. */
const FIELD_NAME = /^[!-9;-~]+$/;
/** What the message is made of, set by the mail plugin and its provider alone. */
const OWN_HEADERS = new Set(['from', 'sender', 'reply-to', 'to', 'cc', 'bcc', 'subject', 'date', 'message-id', 'in-reply-to', 'references', 'mime-version', 'return-path', 'received']);

/** A caller's headers, checked: a name the message owns or a line break (header injection) is a programming error. */
function headersOf(headers: Record<string, string>): Record<string, string> {
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (!FIELD_NAME.test(name) || OWN_HEADERS.has(lower) || lower.startsWith('content-')) throw new TypeError(`mail.sender: the header "${name}" cannot be set.`);
    if (typeof value !== 'string' || /[\r\n]/.test(value)) throw new TypeError(`mail.sender: the header "${name}" needs a value on one line.`);
  }
  return { ...headers };
}

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
      ...(message.headers !== undefined ? { headers: headersOf(message.headers) } : {}),
    };
    await this.enqueue({ message: queued }, trx);
    afterCommit(trx, this.wakeWorker);
  }
}
