import type { Authz } from '../../core/authz.ts';
import type { Db } from '../../core/db.ts';
import { MAX_BODY, recordText, type TextField } from './record-text.ts';

export const ENTRIES = 'search_entries';
export const REBUILDS = 'search_rebuilds';
const BACKFILL = 'search_backfill';

export type EntryType = 'record' | 'database' | 'space' | 'document';

/** A record as the index takes it: its cells by api_name and the version they are at. */
export interface RecordSource {
  id: string;
  version: number;
  values: Record<string, unknown>;
}

/** A space, database or document: one title, maybe a body, and what orders its states (see `source_version`). */
export interface NamedEntry {
  id: string;
  type: Exclude<EntryType, 'record'>;
  workspaceId: string;
  spaceId: string;
  databaseId: string | null;
  title: string;
  body: string;
  version: number;
}

/**
 * Every record of one write in one statement (workspace, space, database, then the rows as one JSON array). A row
 * made from an older version than the stored one is skipped: a rebuild page read before a write commits cannot put
 * the old text back over the write's.
 */
const UPSERT_RECORDS = `INSERT INTO ${ENTRIES} (id, workspace_id, type, space_id, database_id, title, body, source_version)
SELECT r.id, ?::uuid, 'record', ?::uuid, ?::uuid, r.title, r.body, r.version
  FROM jsonb_to_recordset(?::jsonb) AS r(id uuid, title text, body text, version integer)
ON CONFLICT (id) DO UPDATE SET title = excluded.title, body = excluded.body, space_id = excluded.space_id,
  source_version = excluded.source_version, indexed_at = now()
  WHERE ${ENTRIES}.source_version <= excluded.source_version`;

/** The index's rows: written in the transactions of the writes they follow, or by the rebuild job and the event subscribers. */
export class SearchIndex {
  constructor(
    readonly db: Db,
    private readonly authz: Authz,
  ) {}

  /** The space a database sits in, read in `db` (a writer's transaction); undefined once the database is gone. */
  async spaceOf(db: Db, workspaceId: string, databaseId: string): Promise<string | undefined> {
    const location = await this.authz.locate('database', { workspaceId, id: databaseId, trx: db });
    return location?.path[0]?.id;
  }

  /** Writes the entries of records of one database (their live text, as `fields` name it). */
  async putRecords(db: Db, workspaceId: string, databaseId: string, fields: TextField[], records: RecordSource[]): Promise<void> {
    const bindings = await this.recordsBindings(db, workspaceId, databaseId, fields, records);
    if (bindings) await db.raw(UPSERT_RECORDS, bindings);
  }

  /** Null when there are no records or the database is gone. */
  private async recordsBindings(db: Db, workspaceId: string, databaseId: string, fields: TextField[], records: RecordSource[]): Promise<string[] | null> {
    if (records.length === 0) return null;
    const spaceId = await this.spaceOf(db, workspaceId, databaseId);
    if (!spaceId) return null;
    const rows = records.map((r) => ({ id: r.id, version: r.version, ...recordText(fields, r.values) }));
    return [workspaceId, spaceId, databaseId, JSON.stringify(rows)];
  }

  async put(db: Db, entry: NamedEntry): Promise<void> {
    await db.raw(
      `INSERT INTO ${ENTRIES} (id, workspace_id, type, space_id, database_id, title, body, source_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET title = excluded.title, body = excluded.body, space_id = excluded.space_id,
         source_version = excluded.source_version, indexed_at = now()
         WHERE ${ENTRIES}.source_version <= excluded.source_version`,
      [entry.id, entry.workspaceId, entry.type, entry.spaceId, entry.databaseId, entry.title, entry.body.slice(0, MAX_BODY), entry.version],
    );
  }

  /** A database moved to another space takes its records' entries along. */
  async moveDatabase(db: Db, databaseId: string, spaceId: string): Promise<void> {
    await db(ENTRIES).where({ database_id: databaseId }).whereNot({ space_id: spaceId }).update({ space_id: spaceId });
  }

  async remove(db: Db, ids: string[]): Promise<void> {
    if (ids.length > 0) await db(ENTRIES).whereIn('id', ids).delete();
  }

  /** A database's entry and its records'. */
  async forgetDatabase(db: Db, databaseId: string): Promise<void> {
    await db(ENTRIES).where({ database_id: databaseId }).orWhere({ id: databaseId }).delete();
    await db(REBUILDS).where({ database_id: databaseId }).delete();
  }

  /** Everything in a space: itself, its databases, their records, its documents. */
  async forgetSpace(db: Db, spaceId: string): Promise<void> {
    await db(ENTRIES).where({ space_id: spaceId }).delete();
  }

  /** Asks for a database's records to be read again: one row per database however often asked. */
  async requestRebuild(db: Db, workspaceId: string, databaseId: string): Promise<void> {
    await db.raw(
      `INSERT INTO ${REBUILDS} (database_id, workspace_id) VALUES (?, ?)
       ON CONFLICT (database_id) DO UPDATE SET requests = ${REBUILDS}.requests + 1, requested_at = now()`,
      [databaseId, workspaceId],
    );
  }

  /**
   * The longest-waiting rebuild but those of `skip`, with how many times it was asked (to tell a request made while
   * it ran).
   */
  async nextRebuild(skip: Set<string>): Promise<{ database_id: string; workspace_id: string; requests: number } | undefined> {
    return this.db(REBUILDS).whereNotIn('database_id', [...skip]).orderBy('requested_at').first('database_id', 'workspace_id', 'requests');
  }

  /** Whether a database's entries are waiting for or in a rebuild, read in `db` (a writer's transaction). */
  async rebuilding(db: Db, databaseId: string): Promise<boolean> {
    return !!(await db(REBUILDS).where({ database_id: databaseId }).first('database_id'));
  }

  /** Ends a rebuild, unless it was asked for again while it ran. */
  async finishRebuild(databaseId: string, requests: number): Promise<boolean> {
    return (await this.db(REBUILDS).where({ database_id: databaseId, requests }).delete()) > 0;
  }

  /** Whether the databases that existed before the plugin was enabled are still to be queued. */
  async backfillDue(): Promise<boolean> {
    return !!(await this.db(BACKFILL).first('id'));
  }

  async backfillDone(db: Db): Promise<void> {
    await db(BACKFILL).delete();
  }

  /**
   * Databases of the workspace whose entries are being rebuilt, among those the caller sees (`visible`: all, or its
   * spaces' and its grants'), and since when the oldest waits: a hidden database's rebuild is not even counted.
   */
  async pending(workspaceId: string, visible: 'all' | { spaces: string[]; databases: string[] }): Promise<{ count: number; since: Date | null }> {
    const q = this.db(REBUILDS).where({ workspace_id: workspaceId });
    if (visible !== 'all') {
      const inSpaces = this.db(ENTRIES).where({ workspace_id: workspaceId, type: 'database' }).whereIn('space_id', visible.spaces).select('id');
      q.where((w) => w.whereIn('database_id', visible.databases).orWhereIn('database_id', inSpaces));
    }
    const row = await q.first(this.db.raw('count(*)::int AS count'), this.db.raw('min(requested_at) AS since'));
    return { count: row?.count ?? 0, since: row?.since ? new Date(row.since) : null };
  }
}
