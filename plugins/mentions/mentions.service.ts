import type { Authz, Location, WorkspaceAccess } from '../../core/authz.ts';
import type { Db } from '../../core/db.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { UserService } from '../auth/public.ts';
import type { CommentChanged } from '../comments/public.ts';
import { FORMER_MEMBER, type DescriptionWritten, type DocumentContentWritten } from '../documents/public.ts';
import type { RecordService } from '../records/public.ts';
import type { MentionHooks, MentionSource } from './hooks.ts';
import { recordTitle } from './record-title.ts';
import type { Mention } from './schemas.ts';

const TABLE = 'mentions';
const COLUMNS = ['id', 'source_type', 'source_id', 'record_id', 'database_id', 'document_id', 'mentioned_by', 'created_at'];
const NEWEST_FIRST = { keys: [{ column: 'created_at', type: 'timestamptz' as const }, { column: 'id', type: 'uuid' as const }], direction: 'desc' as const };

type Source = Omit<MentionSource, 'title'>;

interface MentionRow {
  id: string;
  source_type: Mention['source_type'];
  source_id: string;
  record_id: string | null;
  database_id: string | null;
  document_id: string | null;
  mentioned_by: string | null;
  created_at: Date;
}

/**
 * Who was mentioned where: one row per (source, user), so a mention is recorded, and told to `mentions.recorded`,
 * once; an edit that keeps it adds nothing, and one that drops it leaves it recorded (it was made, and was told).
 * Only a deleted comment takes its mentions along. The writer mentioning themself is not recorded.
 */
export class MentionService {
  constructor(
    private readonly db: Db,
    private readonly authz: Authz,
    private readonly records: RecordService,
    private readonly users: UserService,
    private readonly hooks: MentionHooks,
  ) {}

  async onComment(change: CommentChanged): Promise<void> {
    const { trx, comment } = change;
    if (change.kind === 'deleted') {
      await trx(TABLE).where({ source_type: 'comment', source_id: comment.id }).delete();
      return;
    }
    const source = { type: 'comment' as const, id: comment.id, recordId: change.recordId, databaseId: change.databaseId, documentId: null };
    await this.record(trx, change.workspaceId, change.actor, source, comment.mentions, comment.text);
  }

  async onDescription(w: DescriptionWritten): Promise<void> {
    const source = { type: 'description' as const, id: w.recordId, recordId: w.recordId, databaseId: w.databaseId, documentId: null };
    await this.record(w.trx, w.workspaceId, w.actor, source, w.mentions, w.afterText);
  }

  async onContent(w: DocumentContentWritten): Promise<void> {
    const source = { type: 'document' as const, id: w.documentId, recordId: null, databaseId: null, documentId: w.documentId };
    await this.record(w.trx, w.workspaceId, w.actor, source, w.mentions, w.text, w.title);
  }

  /** Mentions in the comments and descriptions of records purged for good (the records plugin's `purged` stage). */
  async forgetRecords(trx: Db, databaseId: string, recordIds: string[]): Promise<void> {
    await trx(TABLE).where({ database_id: databaseId }).whereIn('record_id', recordIds).delete();
  }

  /**
   * The caller's mentions, newest first, in sources they can see now: a database or document hidden from them
   * (a guest's spaces, a grant gone) leaves its mentions out, as does a record in the trash.
   */
  async list(principal: UserPrincipal, access: WorkspaceAccess, page: { limit?: number; cursor?: string }): Promise<Page<Mention>> {
    const own = () => this.db(TABLE).where({ workspace_id: access.workspaceId, user_id: principal.user.id });
    const databases: string[] = await own().whereNotNull('database_id').distinct().pluck('database_id');
    const documents: string[] = await own().whereNotNull('document_id').distinct().pluck('document_id');
    const [seenDatabases, seenDocuments] = await Promise.all([
      this.authz.seenIds(principal, access, 'database', databases),
      this.authz.seenIds(principal, access, 'document', documents),
    ]);
    if (seenDatabases.size === 0 && seenDocuments.size === 0) return { data: [], next_cursor: null };
    const query = own()
      .where((w) => {
        if (seenDatabases.size > 0) w.orWhereIn('database_id', [...seenDatabases]);
        if (seenDocuments.size > 0) w.orWhereIn('document_id', [...seenDocuments]);
      })
      .select(COLUMNS);
    const rows = await keysetPage<MentionRow>(this.db, query, NEWEST_FIRST, page);
    const live = await this.liveRecords(access.workspaceId, rows.data);
    const shown = rows.data.filter((r) => r.record_id === null || live.has(`${r.database_id}:${r.record_id}`));
    const names = await this.users.namesOf(shown.flatMap((r) => (r.mentioned_by ? [r.mentioned_by] : [])));
    return { data: shown.map((row) => toMention(row, row.mentioned_by ? names.get(row.mentioned_by) : undefined)), next_cursor: rows.next_cursor };
  }

  /** Records `userIds` for a source, tells `mentions.recorded` the new ones its readers can see. */
  private async record(trx: Db, workspaceId: string, actor: UserPrincipal, source: Source, userIds: string[], text: string, title?: string): Promise<void> {
    const others = userIds.filter((id) => id !== actor.user.id);
    if (others.length === 0) return;
    const rows = others.map((userId) => ({
      workspace_id: workspaceId,
      source_type: source.type,
      source_id: source.id,
      user_id: userId,
      mentioned_by: actor.user.id,
      database_id: source.databaseId,
      record_id: source.recordId,
      document_id: source.documentId,
    }));
    const inserted = (await trx(TABLE).insert(rows).onConflict(['source_type', 'source_id', 'user_id']).ignore().returning(['id', 'user_id'])) as Array<{ id: string; user_id: string }>;
    if (inserted.length === 0 || !this.hooks.recorded.isUsed()) return;
    const location = source.documentId
      ? await this.authz.locate('document', { workspaceId, id: source.documentId, trx })
      : await this.authz.locate('database', { workspaceId, id: source.databaseId!, trx });
    const seeing = await this.seeing(trx, workspaceId, location, inserted);
    if (seeing.length === 0) return;
    const named = { ...source, title: title ?? (await recordTitle(this.records, trx, workspaceId, source.databaseId!, source.recordId!)) };
    await this.hooks.recorded.promise({ trx, workspaceId, actor, source: named, mentions: seeing.map((m) => ({ id: m.id, userId: m.user_id })), text });
  }

  private async seeing<T extends { user_id: string }>(trx: Db, workspaceId: string, location: Location | null, mentions: T[]): Promise<T[]> {
    if (!location) return [];
    const sees = await Promise.all(mentions.map((m) => this.authz.userCanSee(m.user_id, workspaceId, location.path, trx)));
    return mentions.filter((_, i) => sees[i]);
  }

  /** Which of the page's records are live, one lookup per record (a page holds at most 200). */
  private async liveRecords(workspaceId: string, rows: MentionRow[]): Promise<Set<string>> {
    const live = new Set<string>();
    for (const row of rows) {
      if (!row.record_id || !row.database_id) continue;
      const key = `${row.database_id}:${row.record_id}`;
      if (live.has(key)) continue;
      const table = await this.records.readTable(workspaceId, row.database_id);
      if (await table.find(this.db, row.record_id)) live.add(key);
    }
    return live;
  }
}

function toMention(row: MentionRow, name: string | undefined): Mention {
  return {
    id: row.id,
    source_type: row.source_type,
    source_id: row.source_id,
    record_id: row.record_id,
    database_id: row.database_id,
    document_id: row.document_id,
    mentioned_by: name !== undefined && row.mentioned_by ? { id: row.mentioned_by, name } : { id: null, name: FORMER_MEMBER },
    created_at: row.created_at.toISOString(),
  };
}
