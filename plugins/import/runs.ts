import type { Logger } from 'pino';
import type { BlobStore } from '../../core/blobs.ts';
import { afterCommit, type Database as Storage, type Db } from '../../core/db.ts';
import { notFound } from '../../core/errors.ts';
import type { TokenScope, UserPrincipal } from '../../core/principal.ts';
import type { ImportStatus, ImportStatusName, RowError } from './schemas.ts';

const TABLE = 'import_runs';

/** Who a job writes as: the request's principal without the person's name or address (a run row keeps ids only). */
export type StoredActor = { kind: 'session'; userId: string } | { kind: 'pat'; userId: string; tokenId: string; workspaceId: string; scope: TokenScope; allowRunButton: boolean };

export interface RunRow {
  id: string;
  workspace_id: string;
  database_id: string;
  created_by: string;
  actor: StoredActor;
  mapping: Record<string, unknown>;
  blob_key: string | null;
  status: ImportStatusName;
  rows: number | null;
  done: number;
  created: number;
  errors: RowError[];
  created_at: Date;
  finished_at: Date | null;
}

/** What a new run row says: where, who, how the columns map, and its first state. */
export interface NewRun {
  id: string;
  workspaceId: string;
  databaseId: string;
  principal: UserPrincipal;
  mapping: Record<string, unknown>;
}

/** The principal a job acts as: the user by id (writes and history name users by id), as the session or token that sent the file. */
export function actingAs(actor: StoredActor): UserPrincipal {
  const user = { id: actor.userId, email: '', name: '', is_instance_admin: false, avatar_key: null, avatar_updated_at: null, created_at: new Date(0) };
  return actor.kind === 'pat' ? { ...actor, user } : { kind: 'session', sessionId: '', user };
}

function storedActor(p: UserPrincipal): StoredActor {
  return p.kind === 'pat' ? { kind: 'pat', userId: p.user.id, tokenId: p.tokenId, workspaceId: p.workspaceId, scope: p.scope, allowRunButton: p.allowRunButton } : { kind: 'session', userId: p.user.id };
}

/**
 * The `import_runs` table: one row per real import (a job's state and progress, the origin history names), and the
 * progress of the jobs this process runs.
 */
export class ImportRuns {
  /** Jobs running in this process: on PGlite (one connection, held by the job's transaction) progress cannot reach the table while they run. */
  private readonly running = new Map<string, { row: RunRow; rows: number | null; done: number }>();

  constructor(
    private readonly db: Db,
    private readonly storage: Storage,
    private readonly blobs: BlobStore,
    private readonly logger: Logger,
  ) {}

  async insert(trx: Db, run: NewRun, state: Partial<Pick<RunRow, 'status' | 'blob_key' | 'rows' | 'done' | 'created'>> & { finished_at?: unknown }): Promise<void> {
    await trx(TABLE).insert({
      id: run.id,
      workspace_id: run.workspaceId,
      database_id: run.databaseId,
      created_by: run.principal.user.id,
      actor: JSON.stringify(storedActor(run.principal)),
      mapping: JSON.stringify(run.mapping),
      ...state,
    });
  }

  /** Takes a queued run for this process's job (undefined when another took it, or it is gone). */
  async claim(id: string): Promise<RunRow | undefined> {
    const [row] = (await this.db(TABLE).where({ id, status: 'queued' }).update({ status: 'running' }).returning('*')) as RunRow[];
    if (row) this.running.set(id, { row, rows: null, done: 0 });
    return row;
  }

  /** Progress: in this process, and on PostgreSQL in the table too (other instances answer `status`). */
  async report(id: string, state: { rows: number; done: number }): Promise<void> {
    const job = this.running.get(id);
    if (job) Object.assign(job, state);
    if (this.storage.kind === 'postgres') await this.db(TABLE).where({ id }).update(state);
  }

  /** A job's success, in the import's transaction: it commits with the records. */
  async succeeded(trx: Db, id: string, state: { rows: number; done: number; created: number }): Promise<void> {
    await trx(TABLE).where({ id }).update({ status: 'succeeded', ...state, blob_key: null, finished_at: trx.fn.now() });
  }

  async failed(id: string, errors: RowError[]): Promise<void> {
    const job = this.running.get(id);
    await this.db(TABLE).where({ id }).update({ status: 'failed', errors: JSON.stringify(errors), blob_key: null, finished_at: this.db.fn.now(), rows: job?.rows ?? null, done: job?.done ?? 0 });
  }

  /** The job has ended, one way or the other. */
  release(id: string): void {
    this.running.delete(id);
  }

  /** An import's state, for whoever may read the database it writes to. */
  async status(workspaceId: string, databaseId: string, id: string): Promise<ImportStatus> {
    // A job of this process answers from memory: on PGlite its transaction holds the one connection until it ends.
    const running = this.running.get(id);
    const row = running?.row ?? ((await this.db(TABLE).where({ id }).first()) as RunRow | undefined);
    if (!row || row.workspace_id !== workspaceId || row.database_id !== databaseId) throw notFound('No such import in this database.');
    return {
      id: row.id,
      database_id: row.database_id,
      status: row.status,
      rows: running?.rows ?? row.rows,
      done: running?.done ?? row.done,
      created: row.created,
      errors: row.errors,
      created_at: new Date(row.created_at).toISOString(),
      finished_at: row.finished_at ? new Date(row.finished_at).toISOString() : null,
    };
  }

  /**
   * Runs still queued or running `hours` after they were sent: their job died with its process (a crash, not an
   * error, which `failed` records) or never ran. They become `failed` and their files are deleted; returns how many.
   */
  async sweep(hours: number): Promise<number> {
    const stale = (await this.db(TABLE)
      .whereIn('status', ['queued', 'running'])
      .where('created_at', '<', this.db.raw('now() - make_interval(hours => ?)', [hours]))
      .select('id', 'blob_key')) as Array<{ id: string; blob_key: string | null }>;
    if (stale.length === 0) return 0;
    const detail = `The import did not finish within ${hours} hours (its job stopped); nothing was stored. Send the file again.`;
    const ended = (await this.db(TABLE)
      .whereIn('id', stale.map((r) => r.id))
      .whereIn('status', ['queued', 'running'])
      .update({ status: 'failed', errors: JSON.stringify([{ row: null, column: null, detail }]), blob_key: null, finished_at: this.db.fn.now() })
      .returning('id')) as Array<{ id: string }>;
    const keys = new Map(stale.map((r) => [r.id, r.blob_key]));
    for (const { id } of ended) {
      const key = keys.get(id);
      // A job of this process still holds its file: it deletes it when it ends.
      if (key && !this.running.has(id)) await this.blobs.delete(key);
    }
    return ended.length;
  }

  /** The imports `userId` sent (in one workspace, or everywhere), for a GDPR export. */
  async runsOf(trx: Db, userId: string, workspaceId: string | null): Promise<Array<Record<string, unknown>>> {
    const q = trx(TABLE).where({ created_by: userId }).orderBy('created_at').select('id', 'workspace_id', 'database_id', 'status', 'rows', 'created', 'created_at', 'finished_at');
    return workspaceId ? q.where({ workspace_id: workspaceId }) : q;
  }

  /** Deletes the imports `userId` sent (in one workspace, or everywhere), in an erasure's transaction; files still waiting go once it commits. */
  async forgetUser(trx: Db, userId: string, workspaceId: string | null): Promise<number> {
    const q = trx(TABLE).where({ created_by: userId });
    if (workspaceId) q.where({ workspace_id: workspaceId });
    const gone = (await q.del().returning('blob_key')) as Array<{ blob_key: string | null }>;
    const keys = gone.flatMap((r) => (r.blob_key ? [r.blob_key] : []));
    if (keys.length > 0) afterCommit(trx, () => void Promise.all(keys.map((key) => this.blobs.delete(key))).catch((err: unknown) => this.logger.warn({ err }, 'import files of an erased user left behind')));
    return gone.length;
  }

  /** Forgets the imports of a deleted database, in its deleting transaction. */
  async forgetDatabase(trx: Db, databaseId: string): Promise<void> {
    await trx(TABLE).where({ database_id: databaseId }).del();
  }
}
