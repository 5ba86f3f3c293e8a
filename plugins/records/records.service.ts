import type { Authz } from '../../core/authz.ts';
import type { CacheSignals, LocalCache } from '../../core/cache.ts';
import { combineWritesWithinLimit, inTransaction, type Database as Storage, type Db, type NativeStatement } from '../../core/db.ts';
import type { EmitInput, EventBus } from '../../core/events.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { notFound, unlessGone, versionConflict, type ErrorDetail } from '../../core/errors.ts';
import { refusedValues } from './errors.ts';
import type { UserService } from '../auth/public.ts';
import type { FieldTypeRegistry, TableCatalog } from '../databases/public.ts';
import type { MemberService } from '../workspaces/public.ts';
import { originOf, type RecordChangeInput, type RecordChangeHooks, type RecordLifecycle, type WriteOrigin } from './hooks.ts';
import { changedBefore, changedFieldIds, decodeValues, encodeRecord, encodeValues, usersShown, type DecodedValues } from './codec.ts';
import { storeOutsideCells } from './outside-cells.ts';
import { UserNames } from './people.ts';
import { positionsAfter } from './positions.ts';
import type { LiveField } from './live-fields.ts';
import { newRecordId, type RecordRow } from './record-row.ts';
import { RecordTable } from './record-table.ts';
import { insertRecords, updateRecord } from './record-writes.ts';
import { lowerUsage, raiseUsage, type UsageHooks } from '../../core/usage.ts';
import { RecordBatchWriter } from './batch-writer.ts';
import type { ApiRecord, PatchRecordBody } from './schemas.ts';

type Values = Record<string, unknown>;

/**
 * Records of a user database. The live fields of each database (RecordTable) are kept in the
 * process cache, dropped by the `databases` signal; writers hold the workspace and the database
 * first and trust the cached fields only at the schema version they hold, check every cell
 * before answering, and emit `record.*` events in their transaction.
 */
export class RecordService {
  private readonly tables: LocalCache<RecordTable | undefined>;
  private readonly names: UserNames;

  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly types: FieldTypeRegistry,
    private readonly storage: Storage,
    caches: CacheSignals,
    private readonly authz: Authz,
    private readonly catalog: TableCatalog,
    users: UserService,
    /** Which users a write names are members, held until it commits: a removal (which forgets their watches) waits for it. */
    readonly members: Pick<MemberService, 'holdAmong'>,
    private readonly lifecycle: RecordLifecycle,
    private readonly changes: RecordChangeHooks,
    private readonly usage: UsageHooks,
  ) {
    this.tables = caches.create('records.tables', { topics: { databases: 'group' } });
    this.names = new UserNames(users, caches);
  }

  /**
   * The records table of a database as reads see it; 404 when the database is not in the workspace. `trx`: asked inside
   * a transaction, which then reads the fields itself (a second connection from the pool could wait on the first).
   */
  async readTable(workspaceId: string, databaseId: string, trx?: Db): Promise<RecordTable> {
    const table = await this.tables.get(databaseId, '', async () => RecordTable.fromRows(databaseId, await this.catalog.fieldRows(databaseId, trx), this.types));
    if (!table || table.workspaceId !== workspaceId) throw notFound();
    return table;
  }

  /**
   * The table as `principal` reads it: a field reaching a database it cannot see (a link into a
   * space a guest was not given, a lookup through it) reads, filters and sorts as an empty link.
   * `trx`: asked inside a transaction, which must answer it (PGlite has one connection).
   */
  async seenBy(principal: UserPrincipal, table: RecordTable, trx?: Db): Promise<RecordTable> {
    const reached = table.reachedDatabases();
    if (reached.length === 0) return table;
    const access = await this.authz.workspaceAccess(principal, table.workspaceId, trx);
    const seen = await this.authz.seenIds(principal, access, 'database', reached, trx);
    const hidden = new Set(reached.filter((id) => !seen.has(id)));
    return hidden.size === 0 ? table : table.unseenThrough(hidden);
  }

  /** The records a write presented in full (`full`, what its events carry) as `principal` is shown them. */
  async shownTo(principal: UserPrincipal, trx: Db, table: RecordTable, rows: RecordRow[], full: ApiRecord[]): Promise<ApiRecord[]> {
    const seen = await this.seenBy(principal, table, trx);
    return seen === table ? full : this.present(trx, seen, table.withoutComputed(rows));
  }

  /**
   * A record an event presented in full, as `principal` would read it: the same when it sees every database the
   * record's fields reach, else read again as it reads it (null once the record is no longer there to read).
   */
  async asSeenBy(principal: UserPrincipal, workspaceId: string, databaseId: string, record: ApiRecord): Promise<ApiRecord | null> {
    const table = await this.readTable(workspaceId, databaseId);
    if ((await this.seenBy(principal, table)) === table) return record;
    return (await unlessGone(() => this.get(principal, workspaceId, databaseId, record.id))) ?? null;
  }

  async get(principal: UserPrincipal, workspaceId: string, databaseId: string, id: string): Promise<ApiRecord> {
    const table = await this.seenBy(principal, await this.readTable(workspaceId, databaseId));
    return this.presentOne(this.db, table, await table.readById(this.storage, id));
  }

  async getByNumber(principal: UserPrincipal, workspaceId: string, databaseId: string, number: number): Promise<ApiRecord> {
    const table = await this.seenBy(principal, await this.readTable(workspaceId, databaseId));
    return this.presentOne(this.db, table, await table.read(this.db, { number }));
  }

  /**
   * Creates records after the last live one, all or none. `bases` are the JSON pointers of each
   * input (`''` for a single record, `/records/<i>` in bulk), so errors point at the bad cell.
   */
  async create(principal: UserPrincipal, workspaceId: string, databaseId: string, inputs: Values[], bases: string[], inTrx?: Db, origin?: WriteOrigin): Promise<ApiRecord[]> {
    return inTransaction(this.db, async (trx) => {
      const { table, rows, records } = await this.insert(trx, principal, workspaceId, databaseId, inputs.map((values, i) => ({ values, base: bases[i] })), [], origin);
      return this.shownTo(principal, trx, table, rows, records);
    }, inTrx);
  }

  /**
   * Creates one record that no user wrote (a public form submission): `created_by` null, and history,
   * notifications and the `record.created` event (its payload carrying `origin`) all tell `origin`. The caller
   * decides which fields may be sent; `errors` it found already are answered together with the cells' own
   * (pointers under `/values`). Nothing of the record is returned: no one may read it back.
   */
  async createUnattributed(workspaceId: string, databaseId: string, values: Values, origin: WriteOrigin, errors: ErrorDetail[] = []): Promise<void> {
    await inTransaction(this.db, (trx) => this.insert(trx, null, workspaceId, databaseId, [{ values, base: '' }], errors, origin));
  }

  private async insert(trx: Db, actor: UserPrincipal | null, workspaceId: string, databaseId: string, inputs: Array<{ values: Values; base: string }>, errors: ErrorDetail[], origin?: WriteOrigin) {
    const userId = actor?.user.id ?? null;
    const table = await this.open(trx, workspaceId, databaseId);
    const decoded = await this.decode(trx, table, workspaceId, inputs, errors, origin);
    await this.admit(trx, workspaceId, inputs.length);
    const positions = positionsAfter(await table.lastPosition(trx, this.storage), inputs.length);
    const rows = await insertRecords(
      trx,
      this.storage,
      table,
      decoded.map((d, i) => ({ id: newRecordId(), ...d.columns, position: positions[i], created_by: userId, updated_by: userId })),
    );
    // Rows come back in position order, which is the order sent.
    await storeOutsideCells(trx, decoded.map((d, i) => ({ recordId: rows[i].id, cells: d.cells })), { workspaceId, userId });
    await table.reactToWrites(trx, rows, { workspaceId, userId });
    const records = await this.present(trx, table, rows);
    // A write with no user says where it came from in its events too (webhooks and automations see only events).
    const from = actor ? {} : { origin };
    await this.changed(trx, actor, table, records.map((record) => ({ kind: 'created', recordId: record.id, before: null, after: record })), {
      origin,
      events: records.map((record) => ({ name: 'record.created', workspaceId, actorId: userId, payload: { database_id: databaseId, record, ...from } })),
    });
    return { table, rows, records };
  }

  /**
   * A writer of many new records inside `trx` (the caller's transaction), in batches after the last live
   * record, each write telling history with `origin` (an import). Holds the workspace and the database like
   * every write, until `trx` ends.
   */
  async batchWriter(trx: Db, principal: UserPrincipal, workspaceId: string, databaseId: string, origin: WriteOrigin): Promise<RecordBatchWriter> {
    const table = await this.open(trx, workspaceId, databaseId);
    return new RecordBatchWriter(trx, this.storage, this, table, principal, origin, await table.lastPosition(trx, this.storage));
  }

  /**
   * `version`, when sent, must be the current one (409 otherwise); without it the last write wins.
   * The cells are checked first; then one statement locks, checks and updates the record.
   */
  async update(principal: UserPrincipal, workspaceId: string, databaseId: string, id: string, body: PatchRecordBody, inTrx?: Db, origin?: WriteOrigin): Promise<ApiRecord> {
    return inTransaction(this.db, async (trx) => {
      const table = await this.open(trx, workspaceId, databaseId);
      const [decoded] = await this.decode(trx, table, workspaceId, [{ values: body.values, base: '' }], [], origin);
      if (Object.keys(decoded.columns).length === 0 && decoded.cells.length === 0) {
        const current = await table.read(trx, { id });
        if (current && body.version !== undefined && body.version !== current.version) throw versionConflict(current.version);
        return this.presentOne(trx, await this.seenBy(principal, table, trx), current);
      }
      const updated = await updateRecord(trx, this.storage, table, id, decoded.columns, principal.user.id, body.version);
      if (!updated) {
        const current = await table.find(trx, id);
        if (!current) throw notFound('No such record in this database.');
        throw versionConflict(current.version);
      }
      if (decoded.cells.length > 0) {
        // The links as they were, for the event, before they change.
        await table.fillComputed(trx, [updated.before], table.fields);
        await storeOutsideCells(trx, [{ recordId: id, cells: decoded.cells }], { workspaceId, userId: principal.user.id });
      }
      await table.reactToWrites(trx, [{ id, columns: decoded.columns }], { workspaceId, userId: principal.user.id });
      const [beforeRecord, afterRecord] = await this.present(trx, table, [updated.before, updated.after]);
      await this.changed(trx, principal, table, [{ kind: 'updated', recordId: id, before: beforeRecord, after: afterRecord }], {
        origin,
        events: { name: 'record.updated', workspaceId, actorId: principal.user.id, payload: { database_id: databaseId, before: changedBefore(beforeRecord, afterRecord), after: afterRecord } },
      });
      return (await this.shownTo(principal, trx, table, [updated.after], [afterRecord]))[0];
    }, inTrx);
  }

  /** Soft delete: the row stays (for the trash) but no read finds it. */
  async delete(principal: UserPrincipal, workspaceId: string, databaseId: string, id: string): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      const table = await this.open(trx, workspaceId, databaseId);
      const row = await table.find(trx, id, true);
      if (!row) throw notFound('No such record in this database.');
      await table.softDelete(trx, id);
      await this.movedInTrash(trx, principal, workspaceId, databaseId, [id], true);
      const record = await this.presentOne(trx, table, row);
      await this.changed(trx, principal, table, [{ kind: 'deleted', recordId: id, before: record, after: null }], {
        events: { name: 'record.deleted', workspaceId, actorId: principal.user.id, payload: { database_id: databaseId, record } },
      });
    });
  }

  /**
   * Tells `records.changes` what a write did to records, in its transaction (see hooks.ts), and records the write's
   * `events`: what the taps hand over (`later`) and the events' rows go to PostgreSQL as one statement.
   */
  async changed(trx: Db, actor: UserPrincipal | null, table: RecordTable, changes: RecordChangeInput[], told: { origin?: WriteOrigin; events?: EmitInput | EmitInput[]; batch?: boolean } = {}): Promise<void> {
    const later: NativeStatement[] = [];
    if (changes.length > 0 && this.changes.changed.isUsed()) {
      const fields = table.changedFields();
      await this.changes.changed.promise({
        trx,
        workspaceId: table.workspaceId,
        databaseId: table.databaseId,
        actor,
        origin: told.origin ?? (actor ? originOf(actor) : { type: 'user', id: null }),
        batch: told.batch ?? false,
        fields,
        changes: changes.map((c) => ({ ...c, changed: c.kind === 'updated' ? changedFieldIds(table.fields, c.before, c.after) : [] })),
        later: (statement) => void later.push(statement),
      });
    }
    later.push(...this.events.statements(trx, told.events ?? []));
    // One text per mix of taps and per write's shape: prepared once it repeats, like each of its parts before.
    for (const statement of combineWritesWithinLimit(later)) await this.storage.repeated(statement, 'records.changes', trx);
  }

  /** Live records (not in the trash) of a workspace, or of one of its databases: what a plan's `records` limit counts. */
  async liveCount(db: Db, workspaceId: string, databaseId?: string): Promise<number> {
    const tables = (await this.catalog.tables(db, workspaceId)).filter((t) => !databaseId || t.id === databaseId);
    if (tables.length === 0) return 0;
    const counts = tables.map(() => 'SELECT count(*) AS n FROM ?? WHERE deleted_at IS NULL').join(' UNION ALL ');
    const { rows } = await db.raw(`SELECT coalesce(sum(n), 0)::bigint AS n FROM (${counts}) AS c`, tables.map((t) => t.table_name));
    return Number(rows[0].n);
  }

  /** Counts `count` new records in, before they are written: a plan that has no room for them all refuses the write (402). */
  admit(trx: Db, workspaceId: string, count: number): Promise<void> {
    return raiseUsage(this.usage, trx, workspaceId, 'records', count);
  }

  /** Tells `records.lifecycle` that `recordIds` entered (`deleted`) or left the trash, inside the moving transaction. */
  async movedInTrash(trx: Db, actor: UserPrincipal, workspaceId: string, databaseId: string, recordIds: string[], deleted: boolean): Promise<void> {
    if (recordIds.length === 0) return;
    // Records in the trash do not count toward a plan's limit (a restore is counted in before it happens: `admit`).
    if (deleted) await lowerUsage(this.usage, trx, workspaceId, 'records', recordIds.length);
    await (deleted ? this.lifecycle.trashed : this.lifecycle.restored).promise({ trx, workspaceId, databaseId, recordIds, actor });
  }


  /**
   * Shared with the bulk and trash services: holds the workspace and the database (`databases.catalog`)
   * and answers its fields at the version held, from the cache when it has that version.
   */
  async open(trx: Db, workspaceId: string, databaseId: string): Promise<RecordTable> {
    const version = await this.catalog.hold(trx, workspaceId, databaseId);
    if (version === undefined) throw notFound();
    const cached = this.tables.peek(databaseId, '');
    if (cached?.schemaVersion === version) return cached;
    // Older than the row: the signal of the change is on its way; read the fields under the lock. What is read
    // then is not kept: the change may be this transaction's own (an import creating fields), which may still roll back.
    if (cached) this.tables.drop(databaseId);
    const fields = () => this.catalog.fieldRows(databaseId, trx);
    const table = cached ? RecordTable.fromRows(databaseId, await fields(), this.types) : await this.tables.get(databaseId, '', async () => RecordTable.fromRows(databaseId, await fields(), this.types));
    if (!table) throw notFound();
    return table;
  }

  /**
   * Decodes every input, checks every named user's membership in one query, and refuses the
   * request with all errors, those the caller found already (`errors`) included.
   */
  async decode(trx: Db, table: RecordTable, workspaceId: string, inputs: Array<{ values: Values; base: string }>, errors: ErrorDetail[] = [], origin?: WriteOrigin): Promise<DecodedValues[]> {
    const writesSynced = origin?.type === 'sync';
    const decoded = inputs.map(({ values, base }) => decodeValues(table, values, base, errors, writesSynced));
    const named = decoded.flatMap((d) => d.users);
    const members = await this.members.holdAmong(trx, workspaceId, [...new Set(named.map((u) => u.id))]);
    for (const { id, pointer } of named) {
      if (!members.has(id)) errors.push({ pointer, detail: `User ${id} is not a member of this workspace.` });
    }
    if (errors.length > 0) throw refusedValues(errors);
    return decoded;
  }

  /**
   * One page of a database's live records in id order, with the values of the fields `pick` keeps, as stored (no
   * reader's view applied), read in `trx` and held FOR SHARE until it ends, records being written skipped: for
   * indexes rebuilt in the background (search), which write what they derive in the same transaction, so that an edit
   * or a delete of those records lands after it, never before (and the skipped ones are told by their own write's
   * `records.changes`). The database is held as writers hold it (its fields cannot change meanwhile). 404 once the
   * database is gone.
   */
  async pageById(trx: Db, workspaceId: string, databaseId: string, after: string | null, limit: number, pick: (field: LiveField) => boolean): Promise<{ fields: LiveField[]; records: ApiRecord[] }> {
    const table = await this.open(trx, workspaceId, databaseId);
    const fields = table.fields.filter(pick);
    return { fields, records: await this.present(trx, table, await table.pageById(trx, after, limit, fields), fields) };
  }

  /**
   * Which of `ids` are live records of the database now, read in `db`: for what follows writes after they commit
   * (`records.committed`), where a later write's delete may already have committed.
   */
  async liveAmong(db: Db, workspaceId: string, databaseId: string, ids: string[]): Promise<Set<string>> {
    return (await this.readTable(workspaceId, databaseId, db)).liveAmong(db, ids);
  }

  async present(db: Db, table: RecordTable, rows: RecordRow[], fields: LiveField[] = table.fields): Promise<ApiRecord[]> {
    await table.fillComputed(db, rows, fields);
    const ctx = await this.names.context(usersShown(rows, fields), db);
    return rows.map((row) => encodeRecord(row, ctx, fields));
  }

  /** Only the records' `values`, as `present` gives them: what an export reads, without the rest of each record. */
  async presentValues(db: Db, table: RecordTable, rows: RecordRow[], fields: LiveField[]): Promise<Array<Record<string, unknown>>> {
    await table.fillComputed(db, rows, fields);
    const ctx = await this.names.context(usersShown(rows, fields), db);
    return rows.map((row) => encodeValues(row, ctx, fields));
  }

  private async presentOne(db: Db, table: RecordTable, row: RecordRow | undefined): Promise<ApiRecord> {
    if (!row) throw notFound('No such record in this database.');
    return (await this.present(db, table, [row]))[0];
  }
}
