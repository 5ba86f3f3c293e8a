import type { WorkspaceAccess } from '../../core/authz.ts';
import { inTransaction, type Db } from '../../core/db.ts';
import { notFound, validationFailed, type ErrorDetail } from '../../core/errors.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { UserService } from '../auth/public.ts';
import type { TableCatalog } from '../databases/public.ts';
import type { ChangedField, RecordService, RecordsChanged, WriteOrigin } from '../records/public.ts';
import { keptFields, sameCell, versionOf, writable } from './cells.ts';
import type { RestoreBody, RestoreChanges, Version } from './schemas.ts';

export const TABLE = 'record_versions';
export const BATCHES = 'record_version_batches';
const NEWEST_FIRST = { keys: [{ column: 'seq', type: 'integer' as const }], direction: 'desc' as const };
const COLUMNS = ['seq', 'values', 'changed_fields', 'created_at', 'created_by', 'origin'];
const PURGE_CHUNK = 5000;
const NO_RECORD = 'No such record in this database.';

/** `jsonb_build_object` takes at most 100 arguments: a version's object is built 50 cells at a time. */
const PAIRS_PER_CALL = 50;

/**
 * One statement for every version of a write, whose kept fields are `count` (`keptFields`): each record's next number
 * is one past its newest (the write holds the record's row, so no other writer numbers it meanwhile); a new record's
 * is 1, without a look. `$1` database, `$2` workspace, `$3` origin, `$4` author, `$5` the versions as a JSON array
 * whose cells are arrays in the kept fields' order, `$6`… the kept fields' ids: the object keyed by field id is built
 * here, so the ids are sent once per write, not once per cell (PostgreSQL's CPU for versions cut by a third to a half, in
 * batches of 1,000 created records measured alone).
 */
function captureSql(count: number): string {
  const calls: string[] = [];
  for (let start = 0; start < count; start += PAIRS_PER_CALL) {
    const pairs: string[] = [];
    for (let i = start; i < Math.min(count, start + PAIRS_PER_CALL); i++) pairs.push(`$${6 + i}::text, r.cells->${i}`);
    calls.push(`jsonb_build_object(${pairs.join(', ')})`);
  }
  // A record with no version row may be one a batch created, whose version 1 is its batch's (looked up only then).
  return `INSERT INTO ${TABLE} (record_id, seq, database_id, workspace_id, "values", changed_fields, origin, created_by)
SELECT r.record_id, CASE WHEN r.created THEN 1 ELSE COALESCE((SELECT max(v.seq) FROM ${TABLE} v WHERE v.record_id = r.record_id),
         (SELECT 1 FROM ${BATCHES} b WHERE b.record_ids @> ARRAY[r.record_id] AND b.database_id = $1::uuid LIMIT 1), 0) + 1 END,
       $1::uuid, $2::uuid, ${calls.length > 0 ? calls.join(' || ') : "'{}'::jsonb"}, r.changed_fields, $3::jsonb, $4::uuid
  FROM jsonb_to_recordset($5::jsonb) AS r(record_id uuid, created boolean, cells jsonb, changed_fields jsonb)`;
}

/** The first versions of a batch's records, in one row: `$1` database, `$2` workspace, `$3` origin, `$4` author, `$5` kept field ids, `$6` record ids, `$7` cells by record id. */
const CAPTURE_BATCH = `INSERT INTO ${BATCHES} (database_id, workspace_id, origin, created_by, fields, record_ids, cells)
VALUES ($1::uuid, $2::uuid, $3::jsonb, $4::uuid, $5::jsonb, $6::uuid[], $7::jsonb)`;

/** A batch record's cells paired with the batch's field ids (`?` the record id), as `record_versions` keeps a version. */
const BATCH_CELLS = `FROM jsonb_array_elements_text(b.fields) WITH ORDINALITY AS f(id, n) JOIN jsonb_array_elements(b.cells -> ?::text) WITH ORDINALITY AS c(cell, n) USING (n)`;
/** Cells a new record reads as empty (cells.ts `isEmpty`): not among version 1's changed fields. */
const EMPTY_CELLS = `'null'::jsonb, '""'::jsonb, 'false'::jsonb, '[]'::jsonb`;

interface VersionRow {
  seq: number;
  values: Record<string, unknown>;
  changed_fields: string[];
  created_at: Date;
  created_by: string | null;
  origin: Version['origin'];
}

/** A field as a version is shown and restored through: the live fields of the database as the caller reads them. */
interface ShownField {
  id: string;
  api_name: string;
  type: string;
  readOnly: boolean;
}

/** Record versions: captured in the writes' transactions, listed, and written back as new versions. */
export class VersionService {
  constructor(
    private readonly db: Db,
    private readonly records: RecordService,
    private readonly catalog: TableCatalog,
    private readonly users: UserService,
  ) {}

  /** The versions of one records write (created, updated with a cell changed, restored from the trash), in its transaction. */
  captureWrite(write: RecordsChanged): void {
    const kept = keptFields(write.fields);
    if ((write.batch || write.changes.length > 1) && write.changes.every((c) => c.kind === 'created' && c.after)) return this.captureBatch(write, kept);
    const versions = write.changes.flatMap((change) => {
      if (change.kind === 'deleted') return [];
      const version = versionOf(change, kept);
      return version ? [{ record_id: change.recordId, created: change.kind === 'created', cells: version.values, changed_fields: version.changed }] : [];
    });
    if (versions.length === 0) return;
    const bindings = [write.databaseId, write.workspaceId, JSON.stringify(write.origin), write.actor?.user.id ?? null, JSON.stringify(versions), ...kept.map((f) => f.id)];
    // Run with the write's other history in one statement (see `records.changes`); no result, so no column types to go stale.
    write.later({ sql: captureSql(kept.length), bindings });
  }

  /** A batch's first versions as one row: the cells of each record in the kept fields' order, by record id. */
  private captureBatch(write: RecordsChanged, kept: ChangedField[]): void {
    if (write.changes.length === 0) return;
    const cells: Record<string, unknown[]> = {};
    for (const change of write.changes) cells[change.recordId] = versionOf(change, kept)!.values;
    const ids = `{${write.changes.map((c) => c.recordId).join(',')}}`;
    const bindings = [write.databaseId, write.workspaceId, JSON.stringify(write.origin), write.actor?.user.id ?? null, JSON.stringify(kept.map((f) => f.id)), ids, JSON.stringify(cells)];
    write.later({ sql: CAPTURE_BATCH, bindings });
  }

  /** A record's versions, newest first; 404 for a record never seen in this database (neither live nor with versions). */
  async list(principal: UserPrincipal, access: WorkspaceAccess, databaseId: string, recordId: string, page: { limit?: number; cursor?: string }): Promise<Page<Version>> {
    const fields = await this.fieldsShownTo(principal, access.workspaceId, databaseId);
    const rows = await keysetPage<VersionRow>(this.db, this.versions(databaseId, recordId), NEWEST_FIRST, page);
    if (rows.data.length === 0 && !page.cursor) {
      const table = await this.records.readTable(access.workspaceId, databaseId);
      if (!(await table.find(this.db, recordId))) throw notFound(NO_RECORD);
    }
    const named = await this.namer(rows.data, fields);
    return { data: rows.data.map((row) => shown(row, fields, named)), next_cursor: rows.next_cursor };
  }

  /**
   * Writes version `v`'s cells back through the records service, as a new version (origin `restore`): only the
   * cells that differ, of live writable fields the caller sees (all the version holds, or those of `fields`).
   * Fields deleted since are skipped. `dry_run`, or nothing to change, writes nothing and answers the changes.
   */
  async restore(principal: UserPrincipal, access: WorkspaceAccess, databaseId: string, recordId: string, v: number, body: RestoreBody): Promise<{ created: Version } | RestoreChanges> {
    const ws = access.workspaceId;
    const row = (await this.versions(databaseId, recordId).where({ seq: v }).first()) as VersionRow | undefined;
    if (!row) throw notFound('No such version of this record.');
    const fields = await this.fieldsShownTo(principal, ws, databaseId);
    const chosen = body.fields ? pick(fields, body.fields) : [...fields.values()].filter((f) => !f.readOnly && f.id in row.values);
    const current = await this.records.get(principal, ws, databaseId, recordId);
    const changes = chosen.flatMap((f) => {
      const before = current.values[f.api_name] ?? null;
      const after = row.values[f.id] ?? null;
      return f.id in row.values && !sameCell(f.type, before, after) ? [{ field: f.api_name, before, after, type: f.type }] : [];
    });
    if (body.dry_run || changes.length === 0) {
      const named = await this.namer([row], fields);
      return { changes: changes.map(({ field, before, after, type }) => ({ field, before, after: named(type, after) })) };
    }
    const values = Object.fromEntries(changes.map((c) => [c.field, writable(c.type, c.after)]));
    const origin: WriteOrigin = { type: 'restore', id: principal.user.id, restored_from: v };
    // The new version read in the write's transaction, which holds the record: no other writer's can be newer.
    const newest = await inTransaction(this.db, async (trx) => {
      await this.records.update(principal, ws, databaseId, recordId, { values }, trx, origin);
      return (await this.versions(databaseId, recordId, trx).orderBy('seq', 'desc').first()) as VersionRow;
    });
    return { created: shown(newest, fields, await this.namer([newest], fields)) };
  }

  /** A deleted database's versions go with it, in the deletion's transaction. */
  async forgetDatabase(trx: Db, databaseId: string): Promise<void> {
    await trx(TABLE).where({ database_id: databaseId }).delete();
    await trx(BATCHES).where({ database_id: databaseId }).delete();
  }

  /** Deletes versions older than `days` except each record's newest, database by database, a chunk at a time; how many went. */
  async purge(days: number): Promise<number> {
    let total = 0;
    for (const { id } of await this.catalog.tables(this.db)) {
      for (;;) {
        const old = this.db(`${TABLE} as o`)
          .where('o.database_id', id)
          .where('o.created_at', '<', this.db.raw('now() - make_interval(days => ?)', [days]))
          .whereExists((q) => q.select(this.db.raw('1')).from(`${TABLE} as n`).whereRaw('n.record_id = o.record_id AND n.seq > o.seq'))
          .select('o.record_id', 'o.seq')
          .limit(PURGE_CHUNK);
        const deleted = await this.db(TABLE).whereIn(['record_id', 'seq'], old).delete();
        total += deleted;
        if (deleted < PURGE_CHUNK) break;
      }
    }
    return total;
  }

  /** A record's versions: its rows, and version 1 from its batch when a batch created it. */
  private versions(databaseId: string, recordId: string, db: Db = this.db) {
    const own = db(TABLE).where({ record_id: recordId, database_id: databaseId }).select(COLUMNS);
    const first = db(`${BATCHES} as b`)
      .where('b.database_id', databaseId)
      .whereRaw('b.record_ids @> ARRAY[?::uuid]', [recordId])
      .select(
        db.raw('1 AS seq'),
        db.raw(`(SELECT coalesce(jsonb_object_agg(f.id, c.cell), '{}'::jsonb) ${BATCH_CELLS}) AS "values"`, [recordId]),
        db.raw(`(SELECT coalesce(jsonb_agg(f.id ORDER BY n), '[]'::jsonb) ${BATCH_CELLS} WHERE c.cell NOT IN (${EMPTY_CELLS})) AS changed_fields`, [recordId]),
        'b.created_at',
        'b.created_by',
        'b.origin',
      )
      .limit(1);
    return db.from(own.unionAll(first, true).as('v')).select(COLUMNS);
  }

  /** Names the users of the user cells of `rows` (kept as bare ids), asked of `auth.users` in one statement. */
  private async namer(rows: VersionRow[], fields: Map<string, ShownField>): Promise<Named> {
    const ids = new Set<string>();
    for (const f of fields.values()) if (f.type === 'user') for (const row of rows) if (typeof row.values[f.id] === 'string') ids.add(row.values[f.id] as string);
    const names = await this.users.namesOf(ids);
    return (type, value) => (type === 'user' && typeof value === 'string' ? { id: value, name: names.get(value) ?? null } : value);
  }

  /** The database's live fields by id, those reaching a database the caller cannot see left out. */
  private async fieldsShownTo(principal: UserPrincipal, workspaceId: string, databaseId: string): Promise<Map<string, ShownField>> {
    const seen = await this.records.seenBy(principal, await this.records.readTable(workspaceId, databaseId));
    return new Map(seen.fields.filter((f) => !f.unseen).map((f) => [f.id, { id: f.id, api_name: f.api_name, type: f.type, readOnly: Boolean(f.fieldType.readOnly) }]));
  }
}

/** The fields a restore names, by api_name or id: 422 for one that is not a live writable field the caller sees. */
function pick(fields: Map<string, ShownField>, refs: string[]): ShownField[] {
  const byName = new Map([...fields.values()].map((f) => [f.api_name, f]));
  const errors: ErrorDetail[] = [];
  const chosen = refs.flatMap((ref, i) => {
    const f = byName.get(ref) ?? fields.get(ref);
    if (!f) errors.push({ pointer: `/fields/${i}`, detail: `No field "${ref}" in this database.` });
    else if (f.readOnly) errors.push({ pointer: `/fields/${i}`, detail: `"${ref}" is computed or a system field: it is never restored.` });
    return f && !f.readOnly ? [f] : [];
  });
  if (errors.length > 0) throw validationFailed(errors);
  return chosen;
}

/** A cell as records read it, from how a version keeps it. */
type Named = (type: string, value: unknown) => unknown;

function shown(row: VersionRow, fields: Map<string, ShownField>, named: Named): Version {
  const values: Record<string, unknown> = {};
  for (const [id, value] of Object.entries(row.values)) {
    const f = fields.get(id);
    if (f) values[f.api_name] = named(f.type, value);
  }
  return {
    version: row.seq,
    values,
    changed_fields: row.changed_fields.flatMap((id) => fields.get(id)?.api_name ?? []),
    created_at: row.created_at.toISOString(),
    created_by: row.created_by,
    origin: row.origin,
  };
}
