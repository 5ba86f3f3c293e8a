import type { Db } from '../../core/db.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { OutboxMail } from './schemas.ts';
import type { Delivery, MailMessage, MailProvider } from './types.ts';

export const OUTBOX_TABLE = 'mail_outbox';

interface OutboxRow {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  headers: Record<string, string> | null;
  created_at: Date;
}

/** The provider for instances without SMTP: messages are stored in `mail_outbox` for an instance admin to read. */
export class MailOutbox implements MailProvider {
  constructor(private readonly db: Db) {}

  async send(message: MailMessage, delivery: Delivery): Promise<void> {
    // Keyed by the delivery: a retried delivery that had already been stored is not stored twice.
    await this.db(OUTBOX_TABLE)
      .insert({ id: delivery.id, to: message.to, subject: message.subject, text: message.text, html: message.html ?? null, headers: message.headers ? JSON.stringify(message.headers) : null })
      .onConflict('id')
      .ignore();
  }

  /** Newest first. */
  async list(page: { limit?: number; cursor?: string }): Promise<Page<OutboxMail>> {
    const q = this.db(OUTBOX_TABLE).select('id', 'to', 'subject', 'text', 'html', 'headers', 'created_at');
    const result = await keysetPage<OutboxRow>(this.db, q, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'desc' }, page);
    return { data: result.data.map((r) => ({ ...r, created_at: r.created_at.toISOString() })), next_cursor: result.next_cursor };
  }
}
