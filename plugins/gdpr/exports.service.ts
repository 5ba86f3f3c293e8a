import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { afterCommit, inTransaction, type Db } from '../../core/db.ts';
import { notFound } from '../../core/errors.ts';
import type { BlobStore } from '../../core/blobs.ts';
import { writeZipBlob, type ZipWriter } from '../../core/zip-writer.ts';
import { GdprErrors } from './errors.ts';
import type { ExportSection, PersonalDataHooks } from './hooks.ts';
import type { DataExport } from './schemas.ts';

const TABLE = 'gdpr_exports';
const AVAILABLE_HOURS = 24;
const blobKey = (id: string) => `gdpr/exports/${id}.zip`;

export interface ExportRow {
  id: string;
  user_id: string;
  workspace_id: string | null;
  requested_by: string;
  status: DataExport['status'];
  blob_key: string | null;
  expires_at: Date | null;
}

/** Whose export a caller may see: their own of themselves (`/me`), or one they asked for in a workspace. */
export interface ExportOwner {
  requestedBy: string;
  workspaceId: string | null;
}

/**
 * Data exports: a row per request, a job that asks every `export` tap and streams one zip (a JSON file per kind,
 * and the files the sections carry) into the blob store through the shared zip writer, kept for 24 hours and then
 * deleted by a scheduled job.
 */
export class DataExports {
  constructor(
    private readonly db: Db,
    private readonly blobs: BlobStore,
    private readonly hooks: PersonalDataHooks,
    private readonly enqueue: (data: { id: string }, trx: Db) => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  /** Queues an export; the job exists only if the row does. */
  async request(owner: ExportOwner, userId: string): Promise<{ id: string; status: 'queued' }> {
    return inTransaction(this.db, async (trx) => {
      const [row] = await trx<ExportRow>(TABLE).insert({ user_id: userId, workspace_id: owner.workspaceId, requested_by: owner.requestedBy }).returning('id');
      await this.enqueue({ id: row!.id }, trx);
      return { id: row!.id, status: 'queued' as const };
    });
  }

  /** An admin's export of a member of their workspace; anyone else is 404. */
  async requestForMember(owner: ExportOwner & { workspaceId: string }, userId: string): Promise<{ id: string; status: 'queued' }> {
    const workspaceIds = await this.hooks.memberships.promise([], { trx: this.db, userId });
    if (!workspaceIds.includes(owner.workspaceId)) throw notFound('No such member.');
    return this.request(owner, userId);
  }

  async get(owner: ExportOwner, id: string, base: string): Promise<DataExport> {
    const row = await this.find(owner, id);
    return {
      id: row.id,
      status: row.status,
      download_url: row.status === 'ready' ? `${base}/${row.id}/download` : null,
      expires_at: row.expires_at ? row.expires_at.toISOString() : null,
    };
  }

  /** The zip as a stream, never whole in memory. */
  async download(owner: ExportOwner, id: string): Promise<Readable> {
    const row = await this.find(owner, id);
    if (row.status === 'expired') throw GdprErrors.export_expired();
    if (row.status !== 'ready' || !row.blob_key) throw GdprErrors.export_not_ready(row.status);
    const stream = await this.blobs.get(row.blob_key);
    if (!stream) throw GdprErrors.export_expired();
    return stream;
  }

  /** The job: every tap's section, read in one transaction so the kinds agree with each other. */
  async run(id: string): Promise<void> {
    const row = await this.db<ExportRow>(TABLE).where({ id }).update({ status: 'running' }).returning('*').then((rows) => rows[0]);
    if (!row) return;
    try {
      const sections = await inTransaction(this.db, async (trx) => {
        const person = await this.hooks.identify.promise({ trx, userId: row.user_id });
        if (!person) return undefined;
        return this.hooks.export.promise([], { trx, userId: row.user_id, person, ...(row.workspace_id ? { workspaceId: row.workspace_id } : {}) });
      });
      if (!sections) return void (await this.db(TABLE).where({ id }).update({ status: 'failed' }));
      const key = blobKey(id);
      await writeZipBlob(this.blobs, key, (zip) => this.write(zip, sections));
      const kept = await this.db(TABLE).where({ id }).update({ status: 'ready', blob_key: key, expires_at: this.db.raw(`now() + interval '${AVAILABLE_HOURS} hours'`) });
      // Erased while the zip was being made: the row is gone, and the file must not stay behind.
      if (kept === 0) await this.blobs.delete(key);
    } catch (err) {
      // A tap that fails would fail again: the requester sees `failed` and may ask anew.
      this.logger.error({ err, export: id }, 'data export failed');
      await this.db(TABLE).where({ id }).update({ status: 'failed' });
    }
  }

  /**
   * One JSON file per kind (items of every section of that kind together), then each section's files under
   * `<kind>/<path>`, streamed from the blob store; a file whose blob is gone is left out.
   */
  private async write(zip: ZipWriter, sections: ExportSection[]): Promise<void> {
    const byKind = new Map<string, unknown[]>();
    for (const { kind, items } of sections) byKind.set(kind, [...(byKind.get(kind) ?? []), ...items]);
    for (const [kind, items] of byKind) await zip.add(`${kind}.json`, JSON.stringify(items, null, 2));
    for (const { kind, files } of sections) {
      for (const file of files ?? []) {
        const bytes = await this.blobs.get(file.blobKey);
        if (bytes) await zip.add(`${kind}/${file.path}`, bytes, { compress: false });
        else this.logger.warn({ blob: file.blobKey }, 'a file of a data export is missing from the blob store');
      }
    }
  }

  /** The scheduled clean-up: files past their 24 hours go, their rows say `expired`. */
  async expire(): Promise<number> {
    const rows: ExportRow[] = await this.db<ExportRow>(TABLE).where({ status: 'ready' }).where('expires_at', '<', this.db.fn.now()).update({ status: 'expired', blob_key: null }).returning('*');
    await this.deleteBlobs(rows.map((r) => blobKey(r.id)));
    return rows.length;
  }

  /**
   * Deletes, inside an erasure, the exports about a user (in one workspace, or all of them with those the user
   * asked for); their files go once the erasure commits, and stay if it rolls back.
   */
  async forget(trx: Db, userId: string, workspaceId?: string): Promise<number> {
    const q = trx<ExportRow>(TABLE);
    if (workspaceId) q.where({ user_id: userId, workspace_id: workspaceId });
    else q.where({ user_id: userId }).orWhere({ requested_by: userId });
    const gone: Array<{ id: string }> = await q.del().returning('id');
    afterCommit(trx, () => void this.deleteBlobs(gone.map((r) => blobKey(r.id))).catch((err: unknown) => this.logger.warn({ err }, 'export files of an erased user left behind')));
    return gone.length;
  }

  private async deleteBlobs(keys: string[]): Promise<void> {
    for (const key of keys) await this.blobs.delete(key);
  }

  private async find(owner: ExportOwner, id: string): Promise<ExportRow> {
    const q = this.db<ExportRow>(TABLE).where({ id, requested_by: owner.requestedBy });
    if (owner.workspaceId) q.where({ workspace_id: owner.workspaceId });
    else q.whereNull('workspace_id');
    const row = await q.first();
    if (!row) throw notFound('No such data export.');
    return row;
  }
}
