import { afterCommit, type Db } from '../../core/db.ts';
import type { BlobStore } from '../../core/blobs.ts';
import type { Jobs } from '../../core/jobs.ts';

/** The job that deletes the bytes of blobs no attachment names any more, sent in the transaction that let them go. */
export const DROP_JOB = 'attachments.drop-blobs';

export interface BlobRow {
  key: string;
  size: string | number;
  mime_type: string;
  width: number | null;
  height: number | null;
  small_key: string | null;
  large_key: string | null;
  thumbnail_failed: boolean;
}

/**
 * The bytes attachments point at. Several attachments may name one blob (a duplicated record's copy shares them);
 * a blob row goes in the transaction that removes the last attachment naming it, and its bytes (and thumbnails) after
 * that transaction commits, by a job that exists only if it does: never before, never when it rolls back.
 */
export class BlobRefs {
  constructor(
    private readonly blobs: BlobStore,
    private readonly jobs: Jobs,
  ) {}

  async add(trx: Db, row: Omit<BlobRow, 'small_key' | 'large_key' | 'thumbnail_failed'>): Promise<void> {
    await trx('attachment_blobs').insert(row);
  }

  /**
   * Called once attachments naming `keys` are deleted in `trx`: the blobs nothing names any more go. The rows are
   * locked first, in a statement of their own, so that two transactions each removing one of a blob's last two
   * attachments are ordered, and the second one sees the first one's deletion and removes the blob.
   */
  async release(trx: Db, keys: string[]): Promise<void> {
    const unique = [...new Set(keys)];
    if (unique.length === 0) return;
    await trx.raw('SELECT key FROM attachment_blobs WHERE key = ANY(?) ORDER BY key FOR UPDATE', [unique]);
    const { rows } = await trx.raw(
      'DELETE FROM attachment_blobs b WHERE b.key = ANY(?) AND NOT EXISTS (SELECT 1 FROM attachments a WHERE a.blob_key = b.key) RETURNING b.key, b.small_key, b.large_key',
      [unique],
    );
    const gone = (rows as BlobRow[]).flatMap((r) => [r.key, r.small_key, r.large_key].filter((k): k is string => !!k));
    if (gone.length === 0) return;
    await this.jobs.send(DROP_JOB, { keys: gone }, trx);
    afterCommit(trx, () => this.jobs.notifyWorker(DROP_JOB));
  }

  /** The job's work: the rows are gone for good, so are the bytes. */
  async drop(keys: string[]): Promise<void> {
    for (const key of keys) await this.blobs.delete(key);
  }
}
