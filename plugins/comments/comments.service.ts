import type { AccessGrant } from '../../core/authz.ts';
import { inTransaction, type Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import { invalidField, notFound } from '../../core/errors.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { atLeast } from '../../core/roles.ts';
import type { UserService } from '../auth/public.ts';
import { FORMER_MEMBER, type CheckedContent, type RichTextChecker, type RichTextDoc } from '../documents/public.ts';
import { originOf, type RecordService } from '../records/public.ts';
import { CommentErrors } from './errors.ts';
import type { CommentChanged, CommentHooks } from './hooks.ts';
import type { Comment, CommentBody } from './schemas.ts';

const TABLE = 'comments';
const COLUMNS = ['id', 'record_id', 'author_id', 'content', 'text', 'mentions', 'edited', 'created_at', 'updated_at'];
const OLDEST_FIRST = { keys: [{ column: 'created_at', type: 'timestamptz' as const }, { column: 'id', type: 'uuid' as const }], direction: 'asc' as const };
/** API.md: comments hold at most 10,000 characters of text. */
export const MAX_COMMENT_TEXT = 10_000;
const NO_RECORD = 'No such record in this database.';
const NO_COMMENT = 'No such comment on this record.';

interface CommentRow {
  id: string;
  record_id: string;
  author_id: string | null;
  content: RichTextDoc;
  text: string;
  mentions: string[];
  edited: boolean;
  created_at: Date;
  updated_at: Date;
}

/** Where a comment is: the record it is on. */
interface On {
  workspaceId: string;
  databaseId: string;
  recordId: string;
}

/**
 * Comments on live records, oldest first. Content is rich text checked by the documents plugin (mentions name
 * members); each write tells `comments.changes` in its transaction and emits `comment.*`. Only the author edits;
 * the author or a workspace admin deletes.
 */
export class CommentService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly records: RecordService,
    private readonly checker: RichTextChecker,
    private readonly users: UserService,
    private readonly hooks: CommentHooks,
  ) {}

  async list(on: On, page: { limit?: number; cursor?: string }): Promise<Page<Comment>> {
    const table = await this.records.readTable(on.workspaceId, on.databaseId);
    if (!(await table.find(this.db, on.recordId))) throw notFound(NO_RECORD);
    const rows = await keysetPage<CommentRow>(this.db, this.db(TABLE).where({ database_id: on.databaseId, record_id: on.recordId }).select(COLUMNS), OLDEST_FIRST, page);
    return { data: await this.present(this.db, rows.data), next_cursor: rows.next_cursor };
  }

  async create(principal: UserPrincipal, on: On, body: CommentBody): Promise<Comment> {
    return inTransaction(this.db, async (trx) => {
      await this.requireLive(trx, on);
      const checked = await this.check(trx, on, body);
      const [row] = (await trx(TABLE)
        .insert({
          workspace_id: on.workspaceId,
          database_id: on.databaseId,
          record_id: on.recordId,
          author_id: principal.user.id,
          content: JSON.stringify(checked.doc),
          text: checked.text,
          mentions: JSON.stringify(checked.mentions),
        })
        .returning(COLUMNS)) as CommentRow[];
      const [comment] = await this.present(trx, [row]);
      await this.changed(trx, principal, on, { kind: 'created', comment });
      return comment;
    });
  }

  async update(principal: UserPrincipal, on: On, commentId: string, body: CommentBody): Promise<Comment> {
    return inTransaction(this.db, async (trx) => {
      await this.requireLive(trx, on);
      const current = await this.row(trx, on, commentId);
      if (current.author_id !== principal.user.id) throw CommentErrors.not_author('Only its author can edit a comment.');
      const checked = await this.check(trx, on, body);
      const [row] = (await trx(TABLE)
        .where({ id: commentId })
        .update({ content: JSON.stringify(checked.doc), text: checked.text, mentions: JSON.stringify(checked.mentions), edited: true, updated_at: trx.fn.now() })
        .returning(COLUMNS)) as CommentRow[];
      const [before, comment] = await this.present(trx, [current, row]);
      await this.changed(trx, principal, on, { kind: 'updated', comment, before });
      return comment;
    });
  }

  /** By its author, or by an admin of the workspace (a token's scope counting). */
  async delete(principal: UserPrincipal, grant: AccessGrant, on: On, commentId: string): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      await this.requireLive(trx, on);
      const current = await this.row(trx, on, commentId);
      if (current.author_id !== principal.user.id && !atLeast(grant.role, 'admin')) throw CommentErrors.not_author('Only its author or a workspace admin can delete a comment.');
      await trx(TABLE).where({ id: commentId }).delete();
      const [comment] = await this.present(trx, [current]);
      await this.changed(trx, principal, on, { kind: 'deleted', comment });
    });
  }

  /** Comments of records purged for good (the records plugin's `purged` stage, in its transaction). */
  async forgetRecords(trx: Db, databaseId: string, recordIds: string[]): Promise<void> {
    await trx(TABLE).where({ database_id: databaseId }).whereIn('record_id', recordIds).delete();
  }

  private async changed(trx: Db, principal: UserPrincipal, on: On, change: Pick<CommentChanged, 'kind' | 'comment' | 'before'>): Promise<void> {
    await this.hooks.changed.promise({ trx, workspaceId: on.workspaceId, databaseId: on.databaseId, recordId: on.recordId, actor: principal, origin: originOf(principal), ...change });
    const payload = { database_id: on.databaseId, record_id: on.recordId, comment: change.comment, ...(change.before ? { before: change.before } : {}) };
    await this.events.emit(trx, { name: `comment.${change.kind}`, workspaceId: on.workspaceId, actorId: principal.user.id, payload });
  }

  /** Rich text of at most MAX_COMMENT_TEXT characters of text, and some: an empty comment says nothing. */
  private async check(trx: Db, on: On, body: CommentBody): Promise<CheckedContent> {
    const checked = await this.checker.check(trx, on.workspaceId, body.content, { pointer: '/content', maxText: MAX_COMMENT_TEXT });
    if (checked.text.trim() === '') throw invalidField('/content', 'A comment needs some text.');
    return checked;
  }

  /** The record, live, held with its database for the length of the write. */
  private async requireLive(trx: Db, on: On): Promise<void> {
    const table = await this.records.open(trx, on.workspaceId, on.databaseId);
    if (!(await table.find(trx, on.recordId))) throw notFound(NO_RECORD);
  }

  private async row(trx: Db, on: On, commentId: string): Promise<CommentRow> {
    const row = (await trx(TABLE).where({ id: commentId, database_id: on.databaseId, record_id: on.recordId }).forUpdate().first(COLUMNS)) as CommentRow | undefined;
    if (!row) throw notFound(NO_COMMENT);
    return row;
  }

  /** Comments with their authors' names, asked of `auth.users` for the whole page in one statement. */
  private async present(db: Db, rows: CommentRow[]): Promise<Comment[]> {
    const names = await this.users.namesOf(rows.flatMap((r) => (r.author_id ? [r.author_id] : [])), db);
    return rows.map((row) => toComment(row, row.author_id ? names.get(row.author_id) : undefined));
  }
}

function toComment(row: CommentRow, name: string | undefined): Comment {
  return {
    id: row.id,
    record_id: row.record_id,
    author: name !== undefined && row.author_id ? { id: row.author_id, name } : { id: null, name: FORMER_MEMBER },
    content: row.content,
    text: row.text,
    mentions: row.mentions,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    edited: row.edited,
  };
}
