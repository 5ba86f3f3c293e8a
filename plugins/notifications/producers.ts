import type { Authz } from '../../core/authz.ts';
import type { Db } from '../../core/db.ts';
import type { PluginHookMap } from '../../core/hooks.ts';
import type { ChangedField, RecordChange, RecordService, RecordsCommitted, WatcherService } from '../records/public.ts';
import type { NotificationInput, NotificationService } from './notifications.service.ts';

// The comments and mentions plugins are optional, and their payloads are known through their hook sets alone.
type CommentChanged = Parameters<PluginHookMap['comments.changes']['changed']['promise']>[0];
type MentionsRecorded = Parameters<PluginHookMap['mentions.recorded']['recorded']['promise']>[0];

/** Longest excerpt of a comment or mentioning text a notification carries. */
const EXCERPT = 200;

/**
 * The notifications other plugins' writes cause: watchers hear of changes (`record_updated`) and comments (`comment`) on
 * their records, a user cell set to someone tells them (`assigned`), and a mention tells who it names (`mention`).
 * Nobody hears of their own action (`notify` drops it). Comments and mentions are told in their write's transaction;
 * record changes once they commit (`records.committed`), a batch of writes at a time, off the write's own path.
 */
export class NotificationProducers {
  constructor(
    private readonly notifications: NotificationService,
    private readonly watchers: WatcherService,
    private readonly records: RecordService,
    private readonly authz: Authz,
  ) {}

  async recordsCommitted(write: RecordsCommitted): Promise<void> {
    // A sync's writes tell nobody record by record: the source's own failures reach its creator instead.
    if (write.origin?.type === 'sync') return;
    const { trx, workspaceId, databaseId, fields, actorId } = write;
    const title = fields.find((f) => f.is_title);
    const subject = (change: RecordChange) => ({ type: 'record', id: change.recordId, title: plainText(title && (change.after ?? change.before)?.values[title.api_name]) });
    const about = (change: RecordChange) => ({ workspaceId, actorId, subject: subject(change), recordId: change.recordId, databaseId });

    const assigned = await this.assignments(trx, workspaceId, databaseId, actorId, fields, write.changes);
    const inputs: NotificationInput[] = assigned.map(({ change, userId, field }) => ({ ...about(change), userId, type: 'assigned', data: { field: field.api_name, field_name: field.name } }));

    const updated = write.changes.filter((c) => c.kind === 'updated' && c.before && c.after);
    const watching = await this.watchers.watchersOf(trx, databaseId, updated.map((c) => c.recordId));
    for (const change of updated) {
      // What was written, not what followed from it (system and computed fields).
      const differs = new Set(change.changed);
      const changedFields = fields.filter((f) => !f.read_only && differs.has(f.id)).map((f) => f.api_name);
      // One assigned by this change hears of it once, as `assigned`.
      const toldAlready = new Set(assigned.filter((a) => a.change === change).map((a) => a.userId));
      for (const userId of watching.get(change.recordId) ?? []) {
        if (!toldAlready.has(userId)) inputs.push({ ...about(change), userId, type: 'record_updated', data: { changed_fields: changedFields } });
      }
    }
    if (inputs.length > 0) await this.notifications.notify(trx, inputs);
  }

  /** A comment posted: the record's watchers hear of it, except its author and those it mentions (they hear of the mention). */
  async commentChanged(event: CommentChanged): Promise<void> {
    if (event.kind !== 'created') return;
    const { trx, workspaceId, databaseId, recordId, comment } = event;
    const mentioned = new Set(comment.mentions);
    const watchers = ((await this.watchers.watchersOf(trx, databaseId, [recordId])).get(recordId) ?? []).filter((id) => !mentioned.has(id));
    if (watchers.length === 0) return;
    const title = await this.recordTitle(trx, workspaceId, databaseId, recordId);
    await this.notifications.notify(
      trx,
      watchers.map((userId) => ({
        workspaceId,
        userId,
        type: 'comment',
        actorId: event.actor.user.id,
        subject: { type: 'record', id: recordId, title },
        recordId,
        databaseId,
        data: { comment_id: comment.id, excerpt: excerpt(comment.text) },
      })),
    );
  }

  /** New mentions, already narrowed by the mentions plugin to members who can see their source. */
  async mentionsRecorded(event: MentionsRecorded): Promise<void> {
    const { source } = event;
    const subject = source.documentId ? { type: 'document', id: source.documentId, title: source.title } : { type: 'record', id: source.recordId ?? source.id, title: source.title };
    await this.notifications.notify(
      event.trx,
      event.mentions.map((mention) => ({
        workspaceId: event.workspaceId,
        userId: mention.userId,
        type: 'mention',
        actorId: event.actor.user.id,
        subject,
        recordId: source.recordId,
        databaseId: source.databaseId,
        data: { mention_id: mention.id, source_type: source.type, source_id: source.id, excerpt: excerpt(event.text) },
      })),
    );
  }

  /**
   * Users newly in a user cell (created with it, or set by an update), other than the actor, who can see the
   * database: one assigned who cannot see it is not told of a record they could not open.
   */
  private async assignments(trx: Db, workspaceId: string, databaseId: string, actorId: string | null, fields: ChangedField[], changes: RecordChange[]) {
    const userFields = fields.filter((f) => f.type === 'user');
    if (userFields.length === 0) return [];
    const found: Array<{ change: RecordChange; userId: string; field: ChangedField }> = [];
    for (const change of changes) {
      if ((change.kind !== 'created' && change.kind !== 'updated') || !change.after) continue;
      for (const field of userFields) {
        const before = new Set(userIds(change.before?.values[field.api_name]));
        for (const userId of userIds(change.after.values[field.api_name])) {
          if (!before.has(userId) && userId !== actorId) found.push({ change, userId, field });
        }
      }
    }
    if (found.length === 0) return [];
    const location = await this.authz.locate('database', { workspaceId, id: databaseId, trx });
    if (!location) return [];
    const seeing = new Set<string>();
    for (const userId of new Set(found.map((f) => f.userId))) if (await this.authz.userCanSee(userId, workspaceId, location.path, trx)) seeing.add(userId);
    return found.filter((f) => seeing.has(f.userId));
  }

  private async recordTitle(trx: Db, workspaceId: string, databaseId: string, recordId: string): Promise<string | null> {
    const table = await this.records.open(trx, workspaceId, databaseId);
    const row = await table.find(trx, recordId);
    const title = table.fields.find((f) => f.is_title);
    if (!row || !title) return null;
    const [record] = await this.records.present(trx, table, [row], [title]);
    return plainText(record.values[title.api_name]);
  }
}

/** The ids a user cell holds: `{ id, name }`, or a list of them. */
function userIds(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(userIds);
  if (value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string') return [(value as { id: string }).id];
  return [];
}

/** A cell as a line of text for a title: text as is, people and choices by name or label, lists joined. */
function plainText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value === '' ? null : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    const parts = value.map(plainText).filter((p): p is string => p !== null);
    return parts.length > 0 ? parts.join(', ') : null;
  }
  if (typeof value === 'object') {
    const named = value as { name?: unknown; label?: unknown; title?: unknown; id?: unknown };
    return plainText(named.name ?? named.label ?? named.title ?? named.id);
  }
  return null;
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT - 1)}…` : flat;
}
