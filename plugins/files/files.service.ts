import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import type { Logger } from 'pino';
import type { Location, LocateRequest } from '../../core/authz.ts';
import type { BlobStore } from '../../core/blobs.ts';
import { afterCommit, afterRollback, inTransaction, type Db } from '../../core/db.ts';
import { notFound } from '../../core/errors.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { lowerUsage, raiseUsage, type UsageHooks } from '../../core/usage.ts';
import { HEAD_BYTES, type Upload } from '../../core/streamed-uploads.ts';
import { FileErrors } from './errors.ts';
import { imageSize, isImage } from './images.ts';
import type { File, SignedUrl } from './schemas.ts';
import { signToken, verifyToken, type SigningKey } from './signed-urls.ts';

/** A live file's row, as the service reads it. */
export interface StoredFile {
  id: string;
  workspace_id: string;
  name: string;
  mime_type: string;
  size: number | string;
  width: number;
  height: number;
  blob_key: string;
  generation: number;
  created_at: Date;
  created_by: string | null;
}

/** A file's bytes about to be served. */
export interface FileContent {
  file: StoredFile;
  /** The caller's copy is current (`If-None-Match`): 304. */
  fresh: boolean;
  /** Null when fresh, or when only the headers are asked for (HEAD). */
  body: Readable | null;
}

/** What a read of the bytes asks: `If-None-Match`, and whether the bytes themselves are wanted (not for HEAD). */
export interface ContentAsk {
  ifNoneMatch: string;
  head: boolean;
}

/** How much of an upload is read when its first 64 KiB do not tell an image's dimensions. */
const SECOND_LOOK_BYTES = 1024 * 1024;

const COLUMNS = ['id', 'workspace_id', 'name', 'mime_type', 'size', 'width', 'height', 'blob_key', 'generation', 'created_at', 'created_by'];

export const contentPath = (workspaceId: string, id: string) => `/api/v1/workspaces/${workspaceId}/files/${id}/content`;

/** The strong validator of a file's bytes: a file id always names the same bytes. */
export const etagOf = (file: Pick<StoredFile, 'id'>) => `"${file.id}"`;

export function toFile(row: StoredFile): File {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    name: row.name,
    mime_type: row.mime_type,
    size: Number(row.size),
    width: row.width,
    height: row.height,
    url: contentPath(row.workspace_id, row.id),
    created_at: row.created_at.toISOString(),
    created_by: row.created_by,
  };
}

/** What is stored of an image judged by its first bytes, or why it is refused. */
async function judgeImage(mime: string | undefined, head: Buffer): Promise<{ mime_type: string; width: number; height: number } | { problem: string }> {
  if (!isImage(mime)) return { problem: `The file is ${mime ?? 'not a recognised format'}; files are PNG, JPEG, WebP or GIF images (judged by their bytes).` };
  const size = await imageSize(head);
  if (!size) return { problem: `The ${mime} image's header does not tell its dimensions: the file is truncated or damaged.` };
  return { mime_type: mime!, ...size };
}

/** Editor images: uploaded to a workspace, read by its members, shared through signed URLs, revoked for good. */
export class FileService {
  constructor(
    private readonly db: Db,
    private readonly blobs: BlobStore,
    private readonly key: SigningKey,
    private readonly logger: Logger,
    private readonly usage: UsageHooks,
  ) {}

  /** Keeps a streamed upload as a file of the workspace if its bytes are an image whose size the header tells. */
  async create(principal: UserPrincipal, workspaceId: string, upload: Upload): Promise<File> {
    let image = await judgeImage(upload.detected?.mime, upload.head);
    // Metadata (EXIF, ICC, XMP) can push a JPEG's frame header past the first 64 KiB: a second, longer look.
    if ('problem' in image && isImage(upload.detected?.mime) && upload.size > upload.head.length) {
      image = await judgeImage(upload.detected?.mime, await this.start(upload.key, Math.min(upload.size, SECOND_LOOK_BYTES)));
    }
    if ('problem' in image) throw FileErrors.unsupported_media_type(image.problem);
    const [row] = await inTransaction(this.db, async (trx) => {
      // A plan without room for the bytes refuses the file (402), and the upload is not kept.
      await raiseUsage(this.usage, trx, workspaceId, 'storage_bytes', upload.size);
      return (await trx('files')
        .insert({ workspace_id: workspaceId, name: upload.name, ...image, size: upload.size, blob_key: upload.key, created_by: principal.user.id })
        .returning(COLUMNS)) as StoredFile[];
    });
    upload.keep();
    return toFile(row);
  }

  /**
   * A file made in `trx` from bytes in hand (a pack's), judged as an upload is: the problem when they are not an
   * image. Its blob is written first and deleted again if `trx` (or what it is a savepoint of) does not commit.
   */
  async createFromBytes(trx: Db, principal: UserPrincipal, workspaceId: string, name: string, bytes: Buffer): Promise<File | { problem: string }> {
    const head = bytes.subarray(0, HEAD_BYTES);
    const detected = await fileTypeFromBuffer(head);
    const image = await judgeImage(detected?.mime, head);
    if ('problem' in image) return image;
    await raiseUsage(this.usage, trx, workspaceId, 'storage_bytes', bytes.length);
    const key = `files/${randomUUID()}`;
    await this.blobs.put(key, bytes, { contentType: image.mime_type });
    afterRollback(trx, () => void this.blobs.delete(key).catch((err: unknown) => this.logger.warn({ err, key }, 'file bytes of a rolled back write left behind')));
    const [row] = (await trx('files')
      // The clock, not the transaction's start: files made together keep their order (a pack exported again lists them alike).
      .insert({ workspace_id: workspaceId, name, ...image, size: bytes.length, blob_key: key, created_by: principal.user.id, made_by_pack: true, created_at: trx.raw('clock_timestamp()') })
      .returning(COLUMNS)) as StoredFile[];
    return toFile(row);
  }

  /** A live file of the workspace, or 404; with `lock` (a transaction), its row is held until commit. */
  async get(workspaceId: string, id: string, lock?: Db): Promise<StoredFile> {
    const q = (lock ?? this.db)('files').where({ id, workspace_id: workspaceId }).whereNull('revoked_at');
    const row = (await (lock ? q.forUpdate() : q).first(COLUMNS)) as StoredFile | undefined;
    if (!row) throw notFound('No such file in this workspace.');
    return row;
  }

  /** The bytes of a live file, unless the caller has them already or asks for headers only. */
  async content(workspaceId: string, id: string, ask: ContentAsk): Promise<FileContent> {
    return this.open(await this.get(workspaceId, id), ask);
  }

  async mint(workspaceId: string, id: string, expiresIn: number, origin: string): Promise<SignedUrl> {
    const file = await this.get(workspaceId, id);
    const expiresAt = Math.floor(Date.now() / 1000) + expiresIn;
    const token = signToken(await this.key.get(), { fileId: file.id, expiresAt, generation: file.generation });
    return { url: `${origin}/api/v1/files/signed/${token}`, expires_at: new Date(expiresAt * 1000).toISOString() };
  }

  /** A token for `id` expiring at `expiresAt` (unix seconds), as `mint` would make: for tests and tools that need a given expiry. */
  async tokenFor(id: string, expiresAt: number): Promise<string> {
    const file = (await this.db('files').where({ id }).first('generation')) as { generation: number } | undefined;
    if (!file) throw notFound('No such file.');
    return signToken(await this.key.get(), { fileId: id, expiresAt, generation: file.generation });
  }

  /** What a signed URL's token opens: 404 for a forged, expired or revoked one, alike. */
  async signed(token: string, ask: ContentAsk): Promise<FileContent> {
    const claim = verifyToken(await this.key.get(), token);
    if (!claim || claim.expiresAt * 1000 <= Date.now()) throw notFound('This link has expired or does not exist.');
    const file = (await this.db('files').where({ id: claim.fileId, generation: claim.generation }).whereNull('revoked_at').first(COLUMNS)) as StoredFile | undefined;
    if (!file) throw notFound('This link has expired or does not exist.');
    return this.open(file, ask);
  }

  /** Ends a file and every signed URL minted for it; its bytes are deleted once that is committed. */
  async revoke(workspaceId: string, id: string): Promise<{ id: string; revoked_at: string }> {
    return inTransaction(this.db, async (trx) => {
      const file = await this.get(workspaceId, id, trx);
      const [row] = (await trx('files')
        .where({ id: file.id })
        .update({ generation: file.generation + 1, revoked_at: trx.fn.now() })
        .returning(['revoked_at'])) as Array<{ revoked_at: Date }>;
      await lowerUsage(this.usage, trx, workspaceId, 'storage_bytes', Number(file.size));
      this.deleteAfterCommit(trx, [file.blob_key]);
      return { id: file.id, revoked_at: row.revoked_at.toISOString() };
    });
  }

  /** `documents.files`: those of `ids` that are live files of the workspace, held (FOR SHARE) so that none is revoked before the write commits. */
  async known(trx: Db, workspaceId: string, ids: string[]): Promise<Set<string>> {
    const rows = (await trx('files').where({ workspace_id: workspaceId }).whereIn('id', ids).whereNull('revoked_at').forShare().pluck('id')) as string[];
    return new Set(rows);
  }

  /** `auth.locate` for `file`: a node of its own, so that only the workspace's members (never its guests) reach it. */
  async locate(req: LocateRequest): Promise<Location | undefined> {
    const row = (await (req.trx ?? this.db)('files').where({ id: req.id, workspace_id: req.workspaceId }).whereNull('revoked_at').first('created_by')) as
      | { created_by: string | null }
      | undefined;
    return row ? { path: [{ type: 'file', id: req.id }], createdBy: row.created_by } : undefined;
  }

  /** The live files of the workspace among `ids`, oldest first. */
  async liveRows(trx: Db, workspaceId: string, ids: string[]): Promise<StoredFile[]> {
    if (ids.length === 0) return [];
    return (await trx('files').where({ workspace_id: workspaceId }).whereIn('id', ids).whereNull('revoked_at').orderBy(['created_at', 'id']).select(COLUMNS)) as StoredFile[];
  }

  async isLive(db: Db, workspaceId: string, id: string): Promise<boolean> {
    return (await db('files').where({ id, workspace_id: workspaceId }).whereNull('revoked_at').first('id')) !== undefined;
  }

  /** A file's bytes in memory (a pack's images are small and capped); 404 when they are gone. */
  async bytesOf(file: StoredFile): Promise<Buffer> {
    const bytes = await this.blobs.read(file.blob_key);
    if (!bytes) throw notFound(`The bytes of file ${file.id} are gone.`);
    return bytes;
  }

  /** The live files a user uploaded (in one workspace, or everywhere), oldest first, with where their bytes are. */
  async uploadedBy(trx: Db, userId: string, workspaceId?: string | null): Promise<Array<{ file: File; blobKey: string }>> {
    const q = trx('files').where({ created_by: userId }).whereNull('revoked_at').orderBy(['created_at', 'id']);
    if (workspaceId) q.where({ workspace_id: workspaceId });
    const rows = (await q.select(COLUMNS)) as StoredFile[];
    return rows.map((row) => ({ file: toFile(row), blobKey: row.blob_key }));
  }

  /** Of `ids`, the files a pack made that nothing shows any more (their documents deleted) go, like an erasure. */
  async eraseUnshownPackFiles(trx: Db, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const unshown = (await trx('files')
      .whereIn('id', [...new Set(ids)])
      .where({ made_by_pack: true })
      .whereNotExists((q) => q.select(trx.raw('1')).from('files_uses').whereRaw('files_uses.file_id = files.id'))
      .pluck('id')) as string[];
    await this.erase(trx, unshown);
  }

  /** Files that go for good (an erasure): rows now, bytes once that commits. */
  async erase(trx: Db, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const live = (await trx('files').whereIn('id', ids).whereNull('revoked_at').select('workspace_id', 'blob_key', 'size')) as Array<Pick<StoredFile, 'workspace_id' | 'blob_key' | 'size'>>;
    await trx('files').whereIn('id', ids).delete();
    for (const workspaceId of new Set(live.map((f) => f.workspace_id))) {
      await lowerUsage(this.usage, trx, workspaceId, 'storage_bytes', live.filter((f) => f.workspace_id === workspaceId).reduce((sum, f) => sum + Number(f.size), 0));
    }
    this.deleteAfterCommit(trx, live.map((f) => f.blob_key));
  }

  /** Bytes of the workspace's live files: what a plan's `storage_bytes` limit counts. */
  async storedBytes(db: Db, workspaceId: string): Promise<number> {
    const row = await db('files').where({ workspace_id: workspaceId }).whereNull('revoked_at').sum({ bytes: 'size' }).first();
    return Number(row?.bytes ?? 0);
  }

  /** A workspace being deleted: its files go with it, their bytes once the deletion is committed. */
  async forgetWorkspace(trx: Db, workspaceId: string): Promise<void> {
    const keys = (await trx('files').where({ workspace_id: workspaceId }).whereNull('revoked_at').pluck('blob_key')) as string[];
    await trx('files').where({ workspace_id: workspaceId }).delete();
    this.deleteAfterCommit(trx, keys);
  }

  /** Bytes whose rows are gone, deleted after commit; one left behind is logged, never an error for the request. */
  deleteAfterCommit(trx: Db, keys: string[]): void {
    if (keys.length === 0) return;
    afterCommit(trx, () => {
      void (async () => {
        for (const key of keys) {
          await this.blobs.delete(key).catch((err: unknown) => this.logger.warn({ err, key }, 'file bytes left behind'));
        }
      })();
    });
  }

  /** The first `bytes` bytes of a blob. */
  private async start(key: string, bytes: number): Promise<Buffer> {
    const stream = await this.blobs.get(key, { start: 0, end: bytes - 1 });
    const chunks: Buffer[] = [];
    for await (const chunk of stream ?? []) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  private async open(file: StoredFile, ask: ContentAsk): Promise<FileContent> {
    if (ask.ifNoneMatch.split(/\s*,\s*/).includes(etagOf(file))) return { file, fresh: true, body: null };
    // A stream opened for HEAD would never be read: an open file, or a pooled socket to the store, held for nothing.
    if (ask.head) return { file, fresh: false, body: null };
    const body = await this.blobs.get(file.blob_key);
    // Revoked between the row's read and now: its bytes are already gone.
    if (!body) throw notFound('No such file.');
    return { file, fresh: false, body };
  }
}
