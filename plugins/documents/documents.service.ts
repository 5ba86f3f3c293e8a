import type { AccessGrant, Authz, WorkspaceAccess } from '../../core/authz.ts';
import { inTransaction, type Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import { invalidField, notFound } from '../../core/errors.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { MAX_DOCUMENT_BYTES, type RichTextChecker } from './content-check.ts';
import { DocumentErrors } from './errors.ts';
import type { DocumentHooks } from './hooks.ts';
import type { RichTextDoc } from './rich-text.ts';
import type { CreateDocumentBody, Document, DocumentContent, DocumentListQuery, PatchDocumentBody, PutContentBody } from './schemas.ts';

const TABLE = 'documents';
const COLUMNS = ['id', 'workspace_id', 'space_id', 'folder_id', 'title', 'version', 'created_at', 'created_by', 'updated_at', 'updated_by'];
const NEWEST_FIRST = { keys: [{ column: 'created_at', type: 'timestamptz' as const }, { column: 'id', type: 'uuid' as const }], direction: 'desc' as const };
const NO_DOCUMENT = 'No such document in this workspace.';

interface DocumentRow {
  id: string;
  workspace_id: string;
  space_id: string;
  folder_id: string | null;
  title: string;
  version: number;
  created_at: Date;
  created_by: string | null;
  updated_at: Date;
  updated_by: string | null;
}

interface ContentRow extends DocumentRow {
  content: RichTextDoc | null;
  text: string;
}

/**
 * Standalone documents: rich text in a space (optionally a folder), titled, with the same version rule as
 * descriptions. Who may do what is the routes' (the `document` locator puts a document in its space); a folder
 * named must be one of the document's space.
 */
export class DocumentService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly authz: Authz,
    private readonly checker: RichTextChecker,
    private readonly hooks: DocumentHooks,
  ) {}

  /** The documents of the spaces the caller sees (a guest: its own), newest first. */
  async list(principal: UserPrincipal, access: WorkspaceAccess, query: DocumentListQuery): Promise<Page<Document>> {
    const q = this.db(TABLE).where('workspace_id', access.workspaceId).select(COLUMNS);
    if (query.space_id) q.where('space_id', query.space_id);
    const scopes = this.authz.visibleScopes(principal, access);
    if (scopes !== 'all') {
      if (scopes.spaces.length === 0) return { data: [], next_cursor: null };
      q.whereIn('space_id', scopes.spaces);
    }
    const page = await keysetPage<DocumentRow>(this.db, q, NEWEST_FIRST, query);
    return { data: page.data.map(toDocument), next_cursor: page.next_cursor };
  }

  async get(workspaceId: string, id: string): Promise<Document> {
    return toDocument(await this.row(this.db, workspaceId, id));
  }

  /** Needs `creator` on the space (a grant there counts); a space the caller cannot see is a 422 at `/space_id`. */
  async create(principal: UserPrincipal, grant: AccessGrant, body: CreateDocumentBody, inTrx?: Db): Promise<Document> {
    const { workspaceId } = grant;
    return inTransaction(this.db, async (trx) => {
      const space = await this.authz.locate('space', { workspaceId, id: body.space_id, trx, lock: true });
      if (!space || !this.authz.canSee(principal, grant.access, space.path)) throw invalidField('/space_id', 'No such space in this workspace.');
      this.authz.demand(principal, grant, 'creator', space.path);
      if (body.folder_id) await this.checkFolder(trx, workspaceId, body.space_id, body.folder_id);
      const userId = principal.user.id;
      const [row] = (await trx(TABLE)
        .insert({ workspace_id: workspaceId, space_id: body.space_id, folder_id: body.folder_id ?? null, title: body.title.trim(), created_by: userId, updated_by: userId })
        .returning(COLUMNS)) as DocumentRow[];
      const document = toDocument(row);
      await this.events.emit(trx, { name: 'document.created', workspaceId, actorId: userId, payload: { document } });
      return document;
    }, inTrx);
  }

  async update(principal: UserPrincipal, workspaceId: string, id: string, body: PatchDocumentBody): Promise<Document> {
    return inTransaction(this.db, async (trx) => {
      const before = await this.row(trx, workspaceId, id, true);
      if (body.folder_id) await this.checkFolder(trx, workspaceId, before.space_id, body.folder_id);
      const change: Record<string, unknown> = {};
      if (body.title !== undefined) change.title = body.title.trim();
      if (body.folder_id !== undefined) change.folder_id = body.folder_id;
      if (Object.keys(change).length === 0) return toDocument(before);
      const [row] = (await trx(TABLE)
        .where({ id })
        .update({ ...change, updated_at: trx.fn.now(), updated_by: principal.user.id })
        .returning(COLUMNS)) as DocumentRow[];
      const document = toDocument(row);
      await this.events.emit(trx, { name: 'document.updated', workspaceId, actorId: principal.user.id, payload: { document, before: toDocument(before) } });
      return document;
    });
  }

  async delete(principal: UserPrincipal, workspaceId: string, id: string, inTrx?: Db): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      const [row] = (await trx(TABLE).where({ id, workspace_id: workspaceId }).delete().returning(COLUMNS)) as DocumentRow[];
      if (!row) throw notFound(NO_DOCUMENT);
      await this.hooks.documentDeleted.promise({ trx, workspaceId, documentId: id, actor: principal });
      await this.events.emit(trx, { name: 'document.deleted', workspaceId, actorId: principal.user.id, payload: { document: toDocument(row) } });
    }, inTrx);
  }

  async content(workspaceId: string, id: string): Promise<DocumentContent> {
    return toContent((await this.db(TABLE).where({ id, workspace_id: workspaceId }).first([...COLUMNS, 'content', 'text'])) ?? missing());
  }

  /** The version rule of descriptions: the row is locked, its version compared, then written. */
  async putContent(principal: UserPrincipal, workspaceId: string, id: string, body: PutContentBody, inTrx?: Db): Promise<DocumentContent> {
    return inTransaction(this.db, async (trx) => {
      const checked = await this.checker.check(trx, workspaceId, body.content, { pointer: '/content', maxBytes: MAX_DOCUMENT_BYTES });
      const current = await this.row(trx, workspaceId, id, true);
      if (body.version !== current.version) throw DocumentErrors.version_conflict(current.version, current.updated_by);
      const [row] = (await trx(TABLE)
        .where({ id })
        .update({ content: JSON.stringify(checked.doc), text: checked.text, version: current.version + 1, updated_at: trx.fn.now(), updated_by: principal.user.id })
        .returning([...COLUMNS, 'content', 'text'])) as ContentRow[];
      await this.hooks.contentWritten.promise({
        trx,
        workspaceId,
        documentId: id,
        spaceId: row.space_id,
        folderId: row.folder_id,
        title: row.title,
        actor: principal,
        version: row.version,
        content: checked.doc,
        text: checked.text,
        mentions: checked.mentions,
      });
      await this.events.emit(trx, { name: 'document.updated', workspaceId, actorId: principal.user.id, payload: { document: toDocument(row), before: toDocument(current) } });
      return toContent(row);
    }, inTrx);
  }

  /**
   * Every standalone document of the instance in id order with its content, `limit` after `after` (null: from the
   * first): for indexes built in the background (search).
   */
  async pageById(after: string | null, limit: number): Promise<Array<{ document: Document; content: DocumentContent }>> {
    const q = this.db(TABLE).orderBy('id').limit(limit).select([...COLUMNS, 'content', 'text']);
    if (after) q.where('id', '>', after);
    return ((await q) as ContentRow[]).map((row) => ({ document: toDocument(row), content: toContent(row) }));
  }

  /** Titles and spaces of documents, for those (mentions) that name them. */
  async summaries(db: Db, workspaceId: string, ids: string[]): Promise<Map<string, { title: string; space_id: string }>> {
    if (ids.length === 0) return new Map();
    const rows = (await db(TABLE).where('workspace_id', workspaceId).whereIn('id', ids).select('id', 'title', 'space_id')) as Array<{ id: string; title: string; space_id: string }>;
    return new Map(rows.map((r) => [r.id, { title: r.title, space_id: r.space_id }]));
  }

  private async row(db: Db, workspaceId: string, id: string, lock = false): Promise<DocumentRow> {
    const q = db(TABLE).where({ id, workspace_id: workspaceId });
    return ((await (lock ? q.forUpdate() : q).first(COLUMNS)) as DocumentRow | undefined) ?? missing();
  }

  private async checkFolder(trx: Db, workspaceId: string, spaceId: string, folderId: string): Promise<void> {
    const folder = await this.authz.locate('folder', { workspaceId, id: folderId, trx, lock: true });
    if (!folder || folder.path[0]?.id !== spaceId) throw invalidField('/folder_id', 'No such folder in this space.');
  }
}

function missing(): never {
  throw notFound(NO_DOCUMENT);
}

function toDocument(row: DocumentRow): Document {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    space_id: row.space_id,
    folder_id: row.folder_id,
    title: row.title,
    version: row.version,
    created_at: row.created_at.toISOString(),
    created_by: row.created_by,
    updated_at: row.updated_at.toISOString(),
    updated_by: row.updated_by,
  };
}

function toContent(row: ContentRow): DocumentContent {
  return { document_id: row.id, content: row.content, version: row.version, updated_at: row.updated_at.toISOString(), updated_by: row.updated_by };
}
