import type { Authz, WorkspaceAccess } from '../../core/authz.ts';
import { v7 as uuidv7 } from 'uuid';
import type { Database, Db, NativeStatement } from '../../core/db.ts';
import { notFound } from '../../core/errors.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { UserService } from '../auth/public.ts';
import type { FieldTypeRegistry, TableCatalog } from '../databases/public.ts';
import type { RecordService } from '../records/public.ts';
import type { NewEntry, StoredChange } from './capture.ts';
import { hiddenFields } from './field-sight.ts';
import type { Entry, WorkspaceActivityQuery } from './schemas.ts';

export const TABLE = 'activity_entries';
const NEWEST_FIRST = { keys: [{ column: 'created_at', type: 'timestamptz' as const }, { column: 'id', type: 'uuid' as const }], direction: 'desc' as const };
const COLUMNS = ['id', 'type', 'actor_id', 'workspace_id', 'database_id', 'record_id', 'changes', 'origin', 'created_at'];
/** Rows per DELETE of the retention purge: short statements, no long lock. */
const PURGE_CHUNK = 5000;

/**
 * One statement for every entry of a write, which share their workspace, database, actor and origin: `$1` workspace,
 * `$2` database, `$3` actor, `$4` origin, `$5` the entries as a JSON array (one parameter to parse rather than nine
 * per entry). Ids are time-ordered (UUIDv7): new keys land at the right edge of the primary key, not on random pages.
 */
const APPEND = `INSERT INTO ${TABLE} (workspace_id, database_id, actor_id, origin, id, record_id, type, changes)
SELECT $1::uuid, $2::uuid, $3::uuid, $4::jsonb, e.id, e.record_id, e.type, e.changes
  FROM jsonb_to_recordset($5::jsonb) AS e(id uuid, record_id uuid, type text, changes jsonb)`;

/** The statement appending the entries of one write (same workspace, database, actor and origin); null when there are none. */
export function appendStatement(entries: NewEntry[]): NativeStatement | null {
  const [first] = entries;
  if (!first) return null;
  const rows = JSON.stringify(entries.map((e) => ({ id: uuidv7(), record_id: e.record_id, type: e.type, changes: e.changes })));
  return { sql: APPEND, bindings: [first.workspace_id, first.database_id, first.actor_id, JSON.stringify(first.origin), rows] };
}

interface EntryRow {
  id: string;
  type: Entry['type'];
  actor_id: string | null;
  workspace_id: string;
  database_id: string;
  record_id: string | null;
  changes: StoredChange[];
  origin: Entry['origin'];
  created_at: Date;
}

/** The activity trail: written in the transactions of the writes it tells about, read newest first as the reader may see it. */
export class ActivityService {
  private readonly runAppend: (values: unknown[], trx: Db) => Promise<unknown[]>;

  constructor(
    private readonly db: Db,
    storage: Database,
    private readonly authz: Authz,
    private readonly records: RecordService,
    private readonly catalog: TableCatalog,
    private readonly types: FieldTypeRegistry,
    private readonly users: UserService,
  ) {
    this.runAppend = storage.prepared('activity.append', APPEND);
  }

  /** The entries of one write (same workspace, database, actor and origin), in one statement. */
  async append(trx: Db, entries: NewEntry[]): Promise<void> {
    const statement = appendStatement(entries);
    if (statement) await this.runAppend(statement.bindings as unknown[], trx);
  }

  /** The entry of a domain event, once however often the event is delivered. */
  async appendOnce(e: NewEntry & { event_id: number }): Promise<void> {
    await this.db.raw(
      `INSERT INTO ${TABLE} (id, workspace_id, database_id, record_id, type, actor_id, origin, changes, event_id)
       VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?) ON CONFLICT (event_id) WHERE event_id IS NOT NULL DO NOTHING`,
      [uuidv7(), e.workspace_id, e.database_id, e.record_id, e.type, e.actor_id, JSON.stringify(e.origin), JSON.stringify(e.changes), e.event_id],
    );
  }

  /** A record's trail in a database the caller sees; 404 for a record never seen there (neither live nor with a trail). */
  async forRecord(principal: UserPrincipal, access: WorkspaceAccess, databaseId: string, recordId: string, page: { limit?: number; cursor?: string }): Promise<Page<Entry>> {
    const query = this.db(TABLE).where({ record_id: recordId, database_id: databaseId }).select(COLUMNS);
    const rows = await keysetPage<EntryRow>(this.db, query, NEWEST_FIRST, page);
    if (rows.data.length === 0 && !page.cursor) {
      const table = await this.records.readTable(access.workspaceId, databaseId);
      if (!(await table.find(this.db, recordId))) throw notFound('No such record in this database.');
    }
    return { data: await this.shown(principal, access, rows.data), next_cursor: rows.next_cursor };
  }

  /** The workspace's trail, narrowed by the filters, in the databases the caller sees (a guest: its spaces' and its grants'). */
  async forWorkspace(principal: UserPrincipal, access: WorkspaceAccess, query: WorkspaceActivityQuery): Promise<Page<Entry>> {
    const q = this.db(TABLE).where({ workspace_id: access.workspaceId }).select(COLUMNS);
    if (query.database_id) q.where({ database_id: query.database_id });
    if (query.actor_id) q.where({ actor_id: query.actor_id });
    if (query.type) q.where({ type: query.type });
    if (this.authz.visibleScopes(principal, access) !== 'all') {
      const databases = (await this.catalog.tables(this.db, access.workspaceId)).map((t) => t.id);
      q.whereIn('database_id', [...(await this.authz.seenIds(principal, access, 'database', databases))]);
    }
    const rows = await keysetPage<EntryRow>(this.db, q, NEWEST_FIRST, query);
    return { data: await this.shown(principal, access, rows.data), next_cursor: rows.next_cursor };
  }

  /** A deleted database's entries go with it, in the deletion's transaction. */
  async forgetDatabase(trx: Db, workspaceId: string, databaseId: string): Promise<void> {
    await trx(TABLE).where({ workspace_id: workspaceId, database_id: databaseId }).delete();
  }

  /**
   * Deletes entries older than `days`, oldest first along the primary key (ids are UUIDv7, their first 48 bits the
   * time they were made), a chunk at a time; how many went.
   */
  async purge(days: number): Promise<number> {
    const cutoff = Date.now() - days * 86_400_000;
    const hex = cutoff.toString(16).padStart(12, '0');
    const before = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
    let total = 0;
    for (;;) {
      const older = this.db(TABLE).where('id', '<', before).orderBy('id').select('id').limit(PURGE_CHUNK);
      const deleted = await this.db(TABLE).whereIn('id', older).delete();
      total += deleted;
      if (deleted < PURGE_CHUNK) return total;
    }
  }

  private async shown(principal: UserPrincipal, access: WorkspaceAccess, rows: EntryRow[]): Promise<Entry[]> {
    const hidden = await hiddenFields(this.records, this.authz, this.types, principal, access, rows.map((r) => r.database_id));
    const people = new Set<string>();
    for (const row of rows) {
      if (row.actor_id) people.add(row.actor_id);
      for (const c of row.changes) if (c.type === 'user') for (const v of [c.before, c.after]) if (typeof v === 'string') people.add(v);
    }
    const names = await this.users.namesOf(people);
    const cell = (c: StoredChange, v: unknown) => (c.type === 'user' && typeof v === 'string' ? { id: v, name: names.get(v) ?? null } : v);
    return rows.map((row) => {
      const name = row.actor_id ? names.get(row.actor_id) : undefined;
      return {
        id: row.id,
        type: row.type,
        actor: row.actor_id && name !== undefined ? { id: row.actor_id, name } : null,
        workspace_id: row.workspace_id,
        database_id: row.database_id,
        record_id: row.record_id,
        changes: row.changes.filter((c) => !hidden(row.database_id, c.field, c.type)).map((c) => ({ field: c.field, name: c.name, before: cell(c, c.before), after: cell(c, c.after) })),
        origin: row.origin,
        created_at: row.created_at.toISOString(),
      };
    });
  }
}
