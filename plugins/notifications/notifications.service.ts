import type { Db } from '../../core/db.ts';
import type { PreferencesService } from '../users/public.ts';
import { NOTIFICATION_TYPE } from './schemas.ts';

/** What a notification is about: its title is copied when sent, so the inbox reads without asking the subject's owner. */
export interface NotificationSubject {
  type: string;
  id: string;
  title: string | null;
}

/** One notification for one recipient, as a sender hands it over. */
export interface NotificationInput {
  workspaceId: string;
  /** The recipient. */
  userId: string;
  /** `mention`, `comment`, `record_updated`, `assigned`, `approval_requested`, `automation`, `invite`, … */
  type: string;
  /** Who caused it (never notified of it); null when nobody did (a public form). */
  actorId: string | null;
  subject: NotificationSubject;
  recordId?: string | null;
  databaseId?: string | null;
  data?: Record<string, unknown>;
}

const TYPE = new RegExp(NOTIFICATION_TYPE);

/**
 * The one door every sender (mentions, comments, watchers, automations, approvals, invites) notifies through, in
 * the sender's transaction: a write that rolls back leaves no notification and no mail behind. Each recipient's
 * delivery for the type (`users.preferences`) decides between an inbox row, a mail in their next digest, both, or
 * nothing.
 */
export class NotificationService {
  constructor(private readonly preferences: PreferencesService, private readonly mail: boolean) {}

  /**
   * Sends `inputs`, leaving out any addressed to its own actor and repeats of one (recipient, type, subject); answers how
   * many went anywhere.
   */
  async notify(trx: Db, inputs: NotificationInput[]): Promise<number> {
    const seen = new Set<string>();
    const wanted = inputs.filter((input) => {
      if (!TYPE.test(input.type)) throw new TypeError(`notifications.notify: "${input.type}" is not a notification type.`);
      const key = `${input.userId}|${input.type}|${input.subject.type}|${input.subject.id}`;
      if (input.userId === input.actorId || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    let sent = 0;
    for (const type of new Set(wanted.map((input) => input.type))) {
      const ofType = wanted.filter((input) => input.type === type);
      const deliveries = await this.preferences.deliveriesFor(ofType.map((input) => input.userId), type, trx);
      const inbox = ofType.filter((input) => deliveries.get(input.userId)!.inbox);
      const email = this.mail ? ofType.filter((input) => deliveries.get(input.userId)!.email) : [];
      await insertAll(trx, 'notifications', inbox);
      await insertAll(trx, 'notifications_emails', email);
      sent += new Set([...inbox, ...email]).size;
    }
    return sent;
  }
}

/** Rows per INSERT: a bulk write with many watchers stays well under PostgreSQL's 65,535 parameters a statement. */
const CHUNK = 1000;

async function insertAll(trx: Db, table: string, inputs: NotificationInput[]): Promise<void> {
  for (let i = 0; i < inputs.length; i += CHUNK) await trx(table).insert(inputs.slice(i, i + CHUNK).map(toRow));
}

function toRow(input: NotificationInput) {
  return {
    workspace_id: input.workspaceId,
    user_id: input.userId,
    type: input.type,
    actor_id: input.actorId,
    subject_type: input.subject.type,
    subject_id: input.subject.id,
    subject_title: input.subject.title,
    record_id: input.recordId ?? null,
    database_id: input.databaseId ?? null,
    data: JSON.stringify(input.data ?? {}),
  };
}
