import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Authz } from '../../core/authz.ts';
import type { BlobStore } from '../../core/blobs.ts';
import { afterCommit, inTransaction, type Db } from '../../core/db.ts';
import { notFound, unlessGone } from '../../core/errors.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { safeSegment, writeZipBlob, ZipLimitError, type ZipWriter } from '../../core/zip-writer.ts';
import type { UserService } from '../auth/public.ts';
import type { DatabaseService } from '../databases/public.ts';
import type { WorkspaceService } from '../workspaces/public.ts';
import type { CsvExports } from './csv.service.ts';
import { ExportErrors } from './errors.ts';
import type { WorkspaceExportEntry, WorkspaceExportHooks } from './hooks.ts';
import type { WorkspaceExport } from './schemas.ts';

const TABLE = 'export_workspace_exports';
/** The zip's layout version, in its manifest: bumped when entries move or change meaning. */
const FORMAT_VERSION = 1;
const TESSERA_VERSION = (JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const blobKey = (id: string) => `export/workspaces/${id}.zip`;

interface ExportRow {
  id: string;
  workspace_id: string;
  requested_by: string | null;
  status: WorkspaceExport['status'];
  done: number;
  total: number;
  blob_key: string | null;
  size: string | number | null;
  error: string | null;
  created_at: Date;
  finished_at: Date | null;
  expires_at: Date | null;
}

export interface ExportDeps {
  db: Db;
  blobs: BlobStore;
  authz: Authz;
  users: UserService;
  workspaces: WorkspaceService;
  databases: DatabaseService;
  csv: CsvExports;
  hooks: WorkspaceExportHooks;
  enqueue: (data: { id: string }, trx: Db) => Promise<unknown>;
  logger: Logger;
  retentionHours: number;
}

/** Why an export failed, in words the admin may read (anything else is logged and told as a generic failure). */
class ExportFailure extends Error {}

/**
 * Whole-workspace exports: a row per request and a job that writes one zip straight into the blob store — a CSV and a
 * schema JSON per database, what plugins add through `export.workspace` (documents, attachments), and `manifest.json`
 * last, naming every entry with its size and SHA-256 — with its progress on the row. Any admin of the workspace sees
 * its exports; the zip is deleted after `retentionHours` by a scheduled job.
 */
export class WorkspaceExports {
  constructor(private readonly deps: ExportDeps) {}

  /** Queues an export; the job exists only if the row does. */
  async request(principal: UserPrincipal, workspaceId: string): Promise<WorkspaceExport> {
    const { db, enqueue } = this.deps;
    const row = await inTransaction(db, async (trx) => {
      const [inserted] = (await trx(TABLE).insert({ workspace_id: workspaceId, requested_by: principal.user.id }).returning('*')) as ExportRow[];
      await enqueue({ id: inserted.id }, trx);
      return inserted;
    });
    return present(row);
  }

  async get(workspaceId: string, id: string): Promise<WorkspaceExport> {
    return present(await this.find(workspaceId, id));
  }

  /** The workspace's exports, newest first. */
  async list(workspaceId: string, page: { limit?: number; cursor?: string }): Promise<Page<WorkspaceExport>> {
    const query = this.deps.db(TABLE).where({ workspace_id: workspaceId }).select('*');
    const rows = await keysetPage<ExportRow>(this.deps.db, query, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'desc' }, page);
    return { data: rows.data.map(present), next_cursor: rows.next_cursor };
  }

  /** The zip as a stream, with its size: 409 before it succeeded, 410 once expired. */
  async download(workspaceId: string, id: string): Promise<{ stream: Readable; size: number }> {
    const row = await this.find(workspaceId, id);
    if (row.status === 'expired') throw ExportErrors.export_expired();
    if (row.status !== 'succeeded' || !row.blob_key) throw ExportErrors.export_not_ready(row.status);
    const stream = await this.deps.blobs.get(row.blob_key);
    if (!stream) throw ExportErrors.export_expired();
    return { stream, size: Number(row.size) };
  }

  /** The job. An export that fails would fail again: it says `failed` with the reason, and the admin may start another. */
  async run(id: string): Promise<void> {
    const { db, blobs, logger } = this.deps;
    const [row] = (await db(TABLE).where({ id, status: 'queued' }).update({ status: 'running' }).returning('*')) as ExportRow[];
    if (!row) return;
    const key = blobKey(id);
    try {
      const principal = await this.requester(row);
      const { size } = await writeZipBlob(blobs, key, (zip) => this.write(zip, row, principal));
      const kept = await db(TABLE)
        .where({ id, status: 'running' })
        .update({ status: 'succeeded', blob_key: key, size, finished_at: db.fn.now(), expires_at: db.raw(`now() + make_interval(hours => ?)`, [this.deps.retentionHours]) });
      // The workspace was deleted while the zip was written: the row is gone, and the zip must not stay behind.
      if (kept === 0) await blobs.delete(key);
    } catch (err) {
      logger.error({ err, export: id }, 'workspace export failed');
      await db(TABLE).where({ id }).update({ status: 'failed', error: reasonOf(err), finished_at: db.fn.now() });
    }
  }

  /**
   * The scheduled clean-up: zips past their retention go, their rows say `expired`. An export still queued or running
   * after as long was cut short (its process stopped, and its job is not retried): it says `failed`, and a zip it may
   * have left goes too.
   */
  async expire(): Promise<number> {
    const { db, blobs, retentionHours } = this.deps;
    const rows = (await db(TABLE).where({ status: 'succeeded' }).where('expires_at', '<=', db.fn.now()).update({ status: 'expired', blob_key: null }).returning('id')) as Array<{ id: string }>;
    const cut = (await db(TABLE)
      .whereIn('status', ['queued', 'running'])
      .where('created_at', '<=', db.raw('now() - make_interval(hours => ?)', [retentionHours]))
      .update({ status: 'failed', error: 'The export was cut short (the server stopped while it ran); start another.', finished_at: db.fn.now() })
      .returning('id')) as Array<{ id: string }>;
    for (const { id } of [...rows, ...cut]) await blobs.delete(blobKey(id));
    return rows.length;
  }

  /**
   * Deletes a workspace's exports inside `trx` (the workspace's deletion, or an erasure from it); their zips go once it
   * commits, and stay if it rolls back. Answers how many there were.
   */
  async forgetWorkspace(trx: Db, workspaceId: string): Promise<number> {
    const rows = (await trx(TABLE).where({ workspace_id: workspaceId }).del().returning('id')) as Array<{ id: string }>;
    afterCommit(trx, () => {
      void (async () => {
        for (const { id } of rows) await this.deps.blobs.delete(blobKey(id));
      })().catch((err: unknown) => this.deps.logger.warn({ err, workspace: workspaceId }, 'zips of deleted workspace exports left behind'));
    });
    return rows.length;
  }

  /** The admin who asked, as the reader of every database: someone no longer an admin there gets no export. */
  private async requester(row: ExportRow): Promise<UserPrincipal> {
    const user = row.requested_by ? await this.deps.users.findById(row.requested_by) : undefined;
    const principal: UserPrincipal | undefined = user && {
      kind: 'session',
      sessionId: `export:${row.id}`,
      user: { id: user.id, email: user.email, name: user.name, is_instance_admin: user.is_instance_admin, avatar_key: user.avatar_key, avatar_updated_at: user.avatar_updated_at, created_at: user.created_at },
    };
    const access = principal && (await this.deps.authz.workspaceAccess(principal, row.workspace_id));
    if (!principal || access?.role !== 'admin') throw new ExportFailure('The admin who asked for this export is no longer an admin of the workspace.');
    return principal;
  }

  private async write(zip: ZipWriter, row: ExportRow, principal: UserPrincipal): Promise<void> {
    const { db, blobs, databases, csv, hooks } = this.deps;
    const workspace = await this.deps.workspaces.summaryOf(row.workspace_id);
    if (!workspace) throw new ExportFailure('The workspace no longer exists.');
    const databaseIds = await this.databaseIds(principal, row.workspace_id);
    const contributed = await hooks.contribute.promise([], { workspaceId: row.workspace_id, requestedBy: row.requested_by });
    let done = 0;
    const total = databaseIds.length * 2 + contributed.length;
    await db(TABLE).where({ id: row.id }).update({ total });
    const step = async () => void (await db(TABLE).where({ id: row.id }).update({ done: ++done }));
    const databaseEntries: Array<{ id: string; name: string; csv: string; schema: string }> = [];
    const missing: string[] = [];
    for (const databaseId of databaseIds) {
      // A database deleted since the list was read is left out.
      const opened = await unlessGone(async () => {
        const database = await databases.get(row.workspace_id, databaseId);
        return { database, file: await csv.open(principal, row.workspace_id, databaseId, {}) };
      });
      if (opened) {
        const { database, file } = opened;
        const base = safeSegment(database.name);
        const schema = await zip.add(`${base}.schema.json`, JSON.stringify({ id: database.id, name: database.name, space_id: database.space_id, fields: database.fields, views: database.views }, null, 2));
        const table = await zip.add(`${base}.csv`, file.stream);
        databaseEntries.push({ id: database.id, name: database.name, csv: table.path, schema: schema.path });
      }
      await step();
      await step();
    }
    for (const entry of contributed) {
      const content = await contentOf(entry, blobs);
      // A blob gone from the store (deleted by hand, a lost disk) is named in the manifest instead of failing every export.
      if (content === undefined) missing.push(entry.path);
      else await zip.add(entry.path, content, 'blobKey' in entry ? { compress: entry.compress ?? false } : {});
      await step();
    }
    const manifest = {
      format_version: FORMAT_VERSION,
      tessera_version: TESSERA_VERSION,
      workspace: { id: workspace.id, name: workspace.name },
      export_id: row.id,
      created_at: new Date().toISOString(),
      databases: databaseEntries,
      entries: zip.entries.map((e) => ({ path: e.path, size: e.size, sha256: e.sha256 })),
      missing,
    };
    await zip.add('manifest.json', JSON.stringify(manifest, null, 2));
  }

  /** Every database of the workspace (an admin sees them all), oldest first. */
  private async databaseIds(principal: UserPrincipal, workspaceId: string): Promise<string[]> {
    const access = await this.deps.authz.workspaceAccess(principal, workspaceId);
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.deps.databases.listVisible(principal, access, { limit: 200, ...(cursor ? { cursor } : {}) });
      ids.push(...page.data.map((d) => d.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    return ids;
  }

  private async find(workspaceId: string, id: string): Promise<ExportRow> {
    const row = (await this.deps.db(TABLE).where({ id, workspace_id: workspaceId }).first()) as ExportRow | undefined;
    if (!row) throw notFound('No such export in this workspace.');
    return row;
  }
}

async function contentOf(entry: WorkspaceExportEntry, blobs: BlobStore): Promise<string | Buffer | Readable | undefined> {
  if ('content' in entry) return entry.content;
  if ('open' in entry) return entry.open();
  return (await blobs.get(entry.blobKey)) ?? undefined;
}

/** What a failed export tells the admin: our own reasons, never a stack, a path or SQL. */
function reasonOf(err: unknown): string {
  return err instanceof ExportFailure || err instanceof ZipLimitError ? err.message : 'The export failed; the server log says why.';
}

function present(row: ExportRow): WorkspaceExport {
  const succeeded = row.status === 'succeeded';
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    status: row.status,
    progress: { done: row.done, total: row.total },
    requested_by: row.requested_by,
    size: succeeded && row.size !== null ? Number(row.size) : null,
    download_url: succeeded ? `/api/v1/workspaces/${row.workspace_id}/exports/${row.id}/download` : null,
    expires_at: succeeded && row.expires_at ? row.expires_at.toISOString() : null,
    error: row.error,
    created_at: row.created_at.toISOString(),
    finished_at: row.finished_at ? row.finished_at.toISOString() : null,
  };
}
