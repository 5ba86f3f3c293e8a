import { inTransaction, afterCommit, type Db } from '../../core/db.ts';
import type { Jobs } from '../../core/jobs.ts';
import { invalidField, notFound } from '../../core/errors.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { Upload } from '../../core/streamed-uploads.ts';
import { imageSize, isImage } from '../files/public.ts';
import type { LiveField, RecordService, RecordTable } from '../records/public.ts';
import { CELL_ITEM_SQL, MAX_ATTACHMENTS_PER_CELL } from './attachment-type.ts';
import type { BlobRefs, BlobRow } from './blob-refs.ts';
import { THUMBNAIL_JOB } from './thumbnails.ts';
import type { Attachment } from './schemas.ts';

/** Where an attachment is: the record it is on. */
export interface On {
  workspaceId: string;
  databaseId: string;
  recordId: string;
}

/** Bytes in the blob store about to become an attachment. */
export interface StoredFile {
  key: string;
  /** Safe already (`safeFileName`). */
  name: string;
  size: number;
  /** The first bytes, for an image's dimensions. */
  head: Buffer;
  mime: string | undefined;
}

/** One file of a workspace, for exports. */
export interface DatabaseFile {
  id: string;
  database_id: string;
  record_id: string;
  field_id: string;
  name: string;
  mime_type: string;
  size: number;
  blob_key: string;
}

/** An attachment found for serving: its shape and its blob. */
export interface Located {
  attachment: Attachment;
  blob: BlobRow;
}

const NO_RECORD = 'No such record in this database.';
const NO_ATTACHMENT = 'No such attachment on this record.';

/**
 * Files in records' attachment cells. Uploading and deleting are record writes: they go through the records service
 * (`records.update` with the new cell), so `records.changes` and `record.updated` carry the cell before and after,
 * and the record's version moves. Reads answer 404 for a record that is not live or a field that was deleted.
 */
export class AttachmentService {
  constructor(
    private readonly db: Db,
    private readonly records: RecordService,
    private readonly refs: BlobRefs,
    private readonly jobs: Jobs,
  ) {}

  /**
   * Stores the streamed file as a new attachment of the record's field, appended to its cell; the caller keeps the
   * upload's blob once this returns (committed). The type comes from the bytes alone; an empty file → 422 at `/file`.
   */
  async upload(principal: UserPrincipal, on: On, fieldRef: string | undefined, upload: Upload): Promise<Attachment> {
    // Nothing to show or serve: an empty part is most often a client that lost the file it meant to send.
    if (upload.size === 0) throw invalidField('/file', 'The file is empty (0 bytes).');
    return this.attach(principal, on, fieldRef, { key: upload.key, name: upload.name, size: upload.size, head: upload.head, mime: upload.detected?.mime });
  }

  /**
   * Makes the bytes stored under `file.key` an attachment of the record's field, appended to its cell, in `inTrx` when
   * given (a pack install). `mime`: what the bytes were found to be, if anything.
   */
  async attach(principal: UserPrincipal, on: On, fieldRef: string | undefined, file: StoredFile, inTrx?: Db): Promise<Attachment> {
    const mime = file.mime ?? 'application/octet-stream';
    const size = isImage(mime) ? await imageSize(file.head) : null;
    return inTransaction(this.db, async (trx) => {
      const table = await this.records.open(trx, on.workspaceId, on.databaseId);
      const field = attachmentField(table, fieldRef);
      // Held until commit: two uploads to one record append one after the other.
      if (!(await table.find(trx, on.recordId, true))) throw notFound(NO_RECORD);
      const cell = await this.cellIds(trx, on.recordId, field.id);
      if (cell.length >= MAX_ATTACHMENTS_PER_CELL) throw invalidField('/file', `The "${field.api_name}" cell holds ${MAX_ATTACHMENTS_PER_CELL} attachments already, the most it may.`);
      await this.refs.add(trx, { key: file.key, size: file.size, mime_type: mime, width: size?.width ?? null, height: size?.height ?? null });
      const [{ id }] = (await trx('attachments')
        .insert({ workspace_id: on.workspaceId, database_id: on.databaseId, record_id: on.recordId, field_id: field.id, blob_key: file.key, name: file.name, created_by: principal.user.id })
        .returning('id')) as Array<{ id: string }>;
      await this.records.update(principal, on.workspaceId, on.databaseId, on.recordId, { values: { [field.api_name]: [...cell, id] } }, trx);
      if (isImage(mime)) {
        await this.jobs.send(THUMBNAIL_JOB, { key: file.key }, trx);
        afterCommit(trx, () => this.jobs.notifyWorker(THUMBNAIL_JOB));
      }
      return (await this.find(trx, on, id))!.attachment;
    }, inTrx);
  }

  async get(on: On, id: string): Promise<Attachment> {
    return (await this.locate(on, id)).attachment;
  }

  /** An attachment of a live record, in a live field, with its blob; 404 otherwise. */
  async locate(on: On, id: string): Promise<Located> {
    const table = await this.records.readTable(on.workspaceId, on.databaseId);
    if (!(await table.find(this.db, on.recordId))) throw notFound(NO_RECORD);
    const found = await this.find(this.db, on, id);
    if (!found || !table.field(found.attachment.field_id)) throw notFound(NO_ATTACHMENT);
    return found;
  }

  /** Takes the attachment out of its cell (a record write); its bytes go after the commit unless a copy still names them. */
  async delete(principal: UserPrincipal, on: On, id: string): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      const table = await this.records.open(trx, on.workspaceId, on.databaseId);
      if (!(await table.find(trx, on.recordId, true))) throw notFound(NO_RECORD);
      const row = (await trx('attachments').where({ id, record_id: on.recordId, database_id: on.databaseId }).whereNotNull('position').first('field_id')) as { field_id: string } | undefined;
      const field = row && table.field(row.field_id);
      if (!field) throw notFound(NO_ATTACHMENT);
      const cell = await this.cellIds(trx, on.recordId, field.id);
      await this.records.update(principal, on.workspaceId, on.databaseId, on.recordId, { values: { [field.api_name]: cell.filter((a) => a !== id) } }, trx);
    });
  }

  /** Removes every attachment of `where` (records purged, a database or workspace deleted), in the deleting transaction. */
  async forget(trx: Db, where: { database_id?: string; workspace_id?: string; record_ids?: string[] }): Promise<void> {
    const query = trx('attachments');
    if (where.database_id) query.where('database_id', where.database_id);
    if (where.workspace_id) query.where('workspace_id', where.workspace_id);
    if (where.record_ids) query.whereIn('record_id', where.record_ids);
    const gone = (await query.delete().returning('blob_key')) as Array<{ blob_key: string }>;
    await this.refs.release(trx, gone.map((g) => g.blob_key));
  }

  /**
   * The files in the live cells of a workspace or of one database, by database, record, field and cell order, with
   * their blob keys: what a workspace export puts in its zip (read the bytes with `blobs.get(blob_key)`). Records in
   * the trash are the caller's to leave out.
   */
  async filesOf(db: Db, where: { workspace_id: string } | { database_id: string }): Promise<DatabaseFile[]> {
    const [column, id] = 'workspace_id' in where ? ['a.workspace_id', where.workspace_id] : ['a.database_id', where.database_id];
    const rows = (await db('attachments as a')
      .join('attachment_blobs as b', 'b.key', 'a.blob_key')
      .where(column, id)
      .whereNotNull('a.position')
      .orderBy(['a.database_id', 'a.record_id', 'a.field_id', 'a.position'])
      .select('a.id', 'a.database_id', 'a.record_id', 'a.field_id', 'a.name', 'b.mime_type', 'b.size', 'a.blob_key')) as Array<DatabaseFile & { size: string | number }>;
    return rows.map((r) => ({ ...r, size: Number(r.size) }));
  }

  private async cellIds(trx: Db, recordId: string, fieldId: string): Promise<string[]> {
    return (await trx('attachments').where({ record_id: recordId, field_id: fieldId }).whereNotNull('position').orderBy(['position', 'id']).pluck('id')) as string[];
  }

  private async find(db: Db, on: On, id: string): Promise<Located | undefined> {
    const { rows } = await db.raw(
      `SELECT ${CELL_ITEM_SQL} AS item, a.record_id, a.field_id, a.created_at, a.created_by, row_to_json(b) AS blob
       FROM attachments a JOIN attachment_blobs b ON b.key = a.blob_key
       WHERE a.id = ? AND a.record_id = ? AND a.database_id = ? AND a.workspace_id = ? AND a.position IS NOT NULL`,
      [id, on.recordId, on.databaseId, on.workspaceId],
    );
    const row = rows[0] as { item: Attachment; record_id: string; field_id: string; created_at: Date | string; created_by: string | null; blob: BlobRow } | undefined;
    if (!row) return undefined;
    const created = row.created_at instanceof Date ? row.created_at.toISOString() : new Date(row.created_at).toISOString();
    return { attachment: { ...row.item, record_id: row.record_id, field_id: row.field_id, created_at: created, created_by: row.created_by }, blob: row.blob };
  }
}

/** The attachment field an upload names (api_name or id), or the database's only one; 422 at `/field` otherwise. */
function attachmentField(table: RecordTable, ref: string | undefined): LiveField {
  if (ref !== undefined) {
    const field = table.field(ref);
    if (!field || field.type !== 'attachment') throw invalidField('/field', `No attachment field "${ref}" in this database.`);
    return field;
  }
  const fields = table.fields.filter((f) => f.type === 'attachment');
  if (fields.length === 1) return fields[0];
  throw invalidField('/field', fields.length === 0 ? 'This database has no attachment field.' : 'This database has several attachment fields: name one in `field`.');
}
