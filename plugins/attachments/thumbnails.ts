import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Db } from '../../core/db.ts';
import type { BlobStore } from '../../core/blobs.ts';
import { isImage, makeThumbnail, MAX_INPUT_PIXELS, type ThumbnailSize } from '../files/public.ts';
import type { BlobRow } from './blob-refs.ts';

/** The job that makes an image's thumbnails, sent in the upload's transaction. */
export const THUMBNAIL_JOB = 'attachments.thumbnail';

const SIZES: ThumbnailSize[] = ['small', 'large'];
const COLUMN = { small: 'small_key', large: 'large_key' } as const;

/**
 * Thumbnails (WebP, `small` 200 px and `large` 800 px on the longest side) of image blobs, kept as blobs of their own
 * and named on the blob's row, so the attachments sharing the bytes share them too. Made by a job after the upload,
 * or on demand when asked for first. An image that cannot be made one — more than MAX_INPUT_PIXELS announced (a
 * decompression bomb: sharp refuses it before allocating anything), or bytes that do not decode — is marked
 * `thumbnail_failed` and never tried again.
 */
export class Thumbnails {
  constructor(
    private readonly db: Db,
    private readonly blobs: BlobStore,
    private readonly logger: Logger,
  ) {}

  /** The job's work: every size not made yet. */
  async makeAll(key: string): Promise<void> {
    for (const size of SIZES) {
      const row = await this.row(key);
      if (!row || row.thumbnail_failed) return;
      if (!row[COLUMN[size]]) await this.make(row, size);
    }
  }

  /**
   * A thumbnail's blob key and size, made now if it was not yet — or if its bytes are missing from the store (a store
   * moved without them): thumbnails can always be made again from the file. Null when none can be made.
   */
  async find(row: BlobRow, size: ThumbnailSize): Promise<{ key: string; size: number } | null> {
    if (!isImage(row.mime_type) || row.thumbnail_failed) return null;
    const column = COLUMN[size];
    const known = row[column];
    const stat = known && (await this.blobs.stat(known));
    if (known && stat) return { key: known, size: stat.size };
    if (known) await this.db('attachment_blobs').where({ key: row.key, [column]: known }).update({ [column]: null });
    const made = await this.make({ ...row, [column]: null }, size);
    const madeStat = made && (await this.blobs.stat(made));
    return made && madeStat ? { key: made, size: madeStat.size } : null;
  }

  private async row(key: string): Promise<BlobRow | undefined> {
    return (await this.db('attachment_blobs').where({ key }).first()) as BlobRow | undefined;
  }

  /**
   * Makes one thumbnail and names it on the row, unless another maker did first (theirs is kept, this one deleted) or
   * the blob went meanwhile. Null when it cannot be made.
   */
  private async make(row: BlobRow, size: ThumbnailSize): Promise<string | null> {
    if (row.width && row.height && row.width * row.height > MAX_INPUT_PIXELS) return this.fail(row.key, 'announces more pixels than allowed');
    const source = await this.blobs.get(row.key);
    if (!source) return null;
    let bytes: Buffer;
    try {
      bytes = await makeThumbnail(source, size);
    } catch (err) {
      return this.fail(row.key, (err as Error).message);
    }
    const thumbKey = `thumbnails/${randomUUID()}.webp`;
    await this.blobs.put(thumbKey, bytes, { contentType: 'image/webp' });
    const column = COLUMN[size];
    const [named] = (await this.db('attachment_blobs').where({ key: row.key }).whereNull(column).update({ [column]: thumbKey }).returning(column)) as Array<Record<string, string>>;
    if (named) return thumbKey;
    await this.blobs.delete(thumbKey);
    return ((await this.row(row.key))?.[column] as string | null | undefined) ?? null;
  }

  private async fail(key: string, reason: string): Promise<null> {
    this.logger.info({ key, reason }, 'no thumbnail can be made of this image');
    await this.db('attachment_blobs').where({ key }).update({ thumbnail_failed: true });
    return null;
  }
}
