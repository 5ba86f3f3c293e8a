import { inTransaction, type Db } from '../../core/db.ts';
import type { UserService } from '../auth/public.ts';
import type { MailSender } from '../mail/public.ts';
import type { Unsubscriber } from './unsubscribe.ts';

/** What waits in `notifications_emails` for the recipient's next digest. */
interface PendingEmail {
  type: string;
  actor_id: string | null;
  subject_title: string | null;
  data: Record<string, unknown>;
  created_at: Date;
}

/** One digest lists at most this many notifications; the rest are counted, not listed. */
const LISTED = 50;

/** How each type reads in a mail: "Ada mentioned you on “Deal”". */
const PHRASES: Record<string, string> = {
  mention: 'mentioned you on',
  comment: 'commented on',
  record_updated: 'changed',
  assigned: 'assigned you to',
  approval_requested: 'asked for your approval on',
  automation: 'sent you a notification about',
  invite: 'invited you to',
};

/** Which notifications a type's unsubscribe line names. */
const NOUNS: Record<string, string> = {
  mention: 'mentions',
  comment: 'comments on records you watch',
  record_updated: 'changes to records you watch',
  assigned: 'assignments',
  approval_requested: 'approval requests',
  automation: 'automation messages',
  invite: 'invitations',
};

/**
 * The email side of notifications: what `notify` queued for a recipient goes out as one digest, at most one per
 * recipient per `emailDigestMinutes`. Each digest names what arrived since the previous one, with one unsubscribe
 * link per type it holds.
 */
export class DigestService {
  constructor(
    private readonly db: Db,
    private readonly users: UserService,
    private readonly mail: MailSender,
    private readonly unsubscriber: Unsubscriber,
    private readonly windowMinutes: number,
    /** Where links point: the instance's `publicUrl`, else the address it listens on (`host.publicUrl`). */
    private readonly origin: () => string,
  ) {}

  /** Mails every recipient whose queue holds something and whose last digest is at least a window old; answers how many were mailed. */
  async sendDue(now = new Date()): Promise<number> {
    const since = new Date(now.getTime() - this.windowMinutes * 60_000);
    const due: string[] = await this.db('notifications_emails as e')
      .leftJoin('notifications_digests as d', 'd.user_id', 'e.user_id')
      .where((w) => w.whereNull('d.last_sent_at').orWhere('d.last_sent_at', '<=', since))
      .distinct()
      .pluck('e.user_id');
    if (due.length === 0) return 0;
    await this.unsubscriber.ready();
    let mailed = 0;
    for (const userId of due) if (await this.sendTo(userId, now, since)) mailed++;
    return mailed;
  }

  /** One recipient's digest, under their digest row's lock: two workers never mail the same items, nor twice in a window. */
  private sendTo(userId: string, now: Date, since: Date): Promise<boolean> {
    return inTransaction(this.db, async (trx) => {
      await trx('notifications_digests').insert({ user_id: userId, last_sent_at: null }).onConflict('user_id').ignore();
      const digest: { last_sent_at: Date | null } = await trx('notifications_digests').where({ user_id: userId }).forUpdate().first('last_sent_at');
      if (digest.last_sent_at && digest.last_sent_at > since) return false;
      const items: PendingEmail[] = await trx('notifications_emails')
        .where({ user_id: userId })
        .delete()
        .returning(['type', 'actor_id', 'subject_title', 'data', 'created_at']);
      if (items.length === 0) return false;
      // An address the mail provider reported bouncing, or whose owner complained, gets no digest: what waited is dropped.
      if ((await this.users.undeliverable([userId], trx)).size > 0) return false;
      const [recipient] = await this.users.contactsOf([userId], trx);
      if (!recipient) return false;
      items.sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
      const types = [...new Set(items.map((item) => item.type))];
      const text = await this.textOf(items, types, userId, trx);
      await this.mail.send({ to: recipient.email, subject: subjectOf(items.length), text, headers: unsubscribeHeaders(await this.link(userId, types)) }, trx);
      await trx('notifications_digests').where({ user_id: userId }).update({ last_sent_at: now });
      return true;
    });
  }

  private async textOf(items: PendingEmail[], types: string[], userId: string, trx: Db): Promise<string> {
    const actors = [...new Set(items.flatMap((item) => (item.actor_id ? [item.actor_id] : [])))];
    const names = await this.users.namesOf(actors, trx);
    const lines = items.slice(0, LISTED).map((item) => `- ${lineOf(item, item.actor_id ? names.get(item.actor_id) : undefined)}`);
    if (items.length > LISTED) lines.push(`- and ${items.length - LISTED} more`);
    const links = await Promise.all(types.map(async (type) => `Stop emails about ${NOUNS[type] ?? `"${type}" notifications`}: ${await this.link(userId, type)}`));
    return [`Since our last email:`, '', ...lines, '', ...links, ''].join('\n');
  }

  /** An absolute unsubscribe link (a mail client opens nothing else) for one type, or every type of a mail. */
  private async link(userId: string, types: string | string[]): Promise<string> {
    return `${this.origin()}/api/v1/public/notifications/unsubscribe/${await this.unsubscriber.token(userId, types)}`;
  }
}

/**
 * RFC 2369's `List-Unsubscribe`, and RFC 8058's `List-Unsubscribe-Post` that lets a mail client unsubscribe in one
 * click by POSTing to the link: only for an HTTPS link, as RFC 8058 requires.
 */
function unsubscribeHeaders(link: string): Record<string, string> {
  return { 'List-Unsubscribe': `<${link}>`, ...(link.startsWith('https://') ? { 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } : {}) };
}

function subjectOf(count: number): string {
  return count === 1 ? '1 new notification' : `${count} new notifications`;
}

function lineOf(item: PendingEmail, actor: string | undefined): string {
  const title = item.subject_title ? `“${item.subject_title}”` : 'an untitled item';
  const excerpt = typeof item.data.excerpt === 'string' && item.data.excerpt ? `: ${item.data.excerpt}` : '';
  return `${actor ?? 'Someone'} ${PHRASES[item.type] ?? 'notified you about'} ${title}${excerpt}`;
}
