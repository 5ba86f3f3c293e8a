import type { Knex } from 'knex';
import type { Database as Storage, Db } from '../../core/db.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import { escapeLike, type CellContext, type FieldTypeRegistry, type SqlCondition } from '../databases/public.ts';
import { computedAlias, computedReads } from './computed-reads.ts';
import type { ChangedField } from './hooks.ts';
import { liveFields, type LiveField } from './live-fields.ts';
import { columnsFor, TEXT_DATES, type RecordRow } from './record-row.ts';

const TRASH_ORDER = { keys: [{ column: 'deleted_at', type: 'timestamptz' as const }, { column: 'id', type: 'uuid' as const }], direction: 'desc' as const };

/**
 * One database's records table: its live fields, and the statements that read, lock, delete and
 * restore its records (those writing cells are in record-writes.ts). Built once per request from
 * the live fields (one query), so the SELECT list names exactly their columns.
 * Table and column names come from ids (databases/names.ts), quoted by knex.
 */
export class RecordTable {
  readonly byApiName: Map<string, LiveField>;
  readonly columns: string[];
  /** `readById`'s statement, written at its first use. */
  private byIdSql: string | undefined;
  /** Fields that react to writes (see FieldType.reaction), each with the columns it watches. */
  private readonly reactions: Array<{ field: LiveField; columns: Set<string> }>;

  private constructor(
    readonly databaseId: string,
    readonly workspaceId: string,
    /** `databases.schema_version` when the fields were read: writers compare it under the database row's lock. */
    readonly schemaVersion: number,
    readonly table: string,
    readonly fields: LiveField[],
    /** The orders an index serves, `<sort key> <direction>` (`databases.sort_indexes`). */
    private readonly sortIndexes: ReadonlySet<string>,
  ) {
    this.byApiName = new Map(fields.map((f) => [f.api_name, f]));
    this.columns = columnsFor(fields);
    this.reactions = fields.flatMap((field) => {
      const watched = new Set(field.fieldType.reaction?.watches(field) ?? []);
      const columns = fields.flatMap((f) => (watched.has(f.id) && f.column_name ? [f.column_name] : []));
      return columns.length > 0 ? [{ field, columns: new Set(columns) }] : [];
    });
  }

  /** The fields as `records.changes` and `records.committed` tell them to their taps. */
  changedFields(): ChangedField[] {
    return this.fields.map((f) => ({ id: f.id, api_name: f.api_name, name: f.name, type: f.type, read_only: Boolean(f.fieldType.readOnly), is_title: f.is_title }));
  }

  /**
   * Lets fields react to records just written (`columns` undefined: created), after all their
   * cells are stored; each field hears of the records whose watched columns were written.
   */
  async reactToWrites(trx: Db, writes: Array<{ id: string; columns?: Record<string, unknown> }>, ctx: CellContext): Promise<void> {
    for (const { field, columns } of this.reactions) {
      const ids = writes.flatMap((w) => (!w.columns || Object.keys(w.columns).some((c) => columns.has(c)) ? [w.id] : []));
      if (ids.length > 0) await field.fieldType.reaction!.react(trx, field, ids, { ...ctx, databaseId: this.databaseId });
    }
  }

  /** The live fields of a database as `databases.catalog.fieldRows` reads them (one row per field, with the database's columns); undefined when there is no such database. */
  static fromRows(databaseId: string, rows: Array<Record<string, any>>, types: FieldTypeRegistry): RecordTable | undefined {
    if (rows.length === 0) return undefined;
    const [first] = rows;
    return new RecordTable(databaseId, first.workspace_id, Number(first.schema_version), first.table_name, liveFields(rows, types), new Set(first.sort_indexes as string[]));
  }

  /** The other databases whose records fields of this one read (links, lookups, rollups, counts). */
  reachedDatabases(): string[] {
    const ids = this.fields.flatMap((f) => f.fieldType.reaches?.database(f) ?? []);
    return [...new Set(ids)].filter((id) => id !== this.databaseId);
  }

  /** This table as read by someone who cannot see the `hidden` databases: the fields reaching them are `unseen`. */
  unseenThrough(hidden: ReadonlySet<string>): RecordTable {
    const fields = this.fields.map((f) => {
      const reached = f.fieldType.reaches?.database(f);
      return reached && hidden.has(reached) ? { ...f, unseen: true } : f;
    });
    return new RecordTable(this.databaseId, this.workspaceId, this.schemaVersion, this.table, fields, this.sortIndexes);
  }

  /** Whether an index of the table gives its records in this order of `expr`, empty ones last. */
  indexed(expr: string, direction: 'asc' | 'desc'): boolean {
    return this.sortIndexes.has(`${expr} ${direction}`);
  }

  private live(db: Db): Knex.QueryBuilder {
    return db(this.table).whereNull('deleted_at').options(TEXT_DATES);
  }

  /** A live field named by api_name or by id (as paths, views and link routes name them). */
  field(ref: string): LiveField | undefined {
    return this.byApiName.get(ref) ?? this.fields.find((f) => f.id === ref);
  }

  /** The columns to select for `fields`: the system columns, then the fields' own. */
  columnsOf(fields: LiveField[]): string[] {
    return fields === this.fields ? this.columns : columnsFor(fields);
  }

  /** `q`: the title contains the text, case-insensitively and literally (`%` and `_` match themselves). */
  titleContains(q: string): SqlCondition {
    const title = this.fields.find((f) => f.is_title);
    const expr = title && titleExpr(title);
    return expr ? { sql: `${expr} ILIKE ?`, bindings: [`%${escapeLike(q)}%`] } : { sql: 'false', bindings: [] };
  }

  async find(db: Db, id: string, lock = false): Promise<RecordRow | undefined> {
    const query = this.live(db).where({ id });
    return (await (lock ? query.forUpdate() : query).first(this.columns)) as RecordRow | undefined;
  }

  /** Which of `ids` are live records. */
  async liveAmong(db: Db, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    return new Set((await this.live(db).whereIn('id', ids).pluck('id')) as string[]);
  }

  /**
   * Live records in id order after `after` (null: from the first), `limit` of them, with the columns of `fields`, held
   * FOR SHARE until `trx` ends, those a writer holds skipped: for readers walking a whole table in the background (the
   * search index), one primary-key range per page, that neither wait for writers nor make them wait long.
   */
  async pageById(trx: Db, after: string | null, limit: number, fields: LiveField[]): Promise<RecordRow[]> {
    const query = this.live(trx).orderBy('id').limit(limit).forShare().skipLocked();
    if (after) query.where('id', '>', after);
    return (await query.select(this.columnsOf(fields))) as RecordRow[];
  }

  /**
   * A live record by id, outside any transaction, read by one statement prepared per table shape (`$1` SQL written
   * once): a get is the commonest read, and knex built the same SQL again for every one.
   */
  async readById(storage: Storage, id: string): Promise<RecordRow | undefined> {
    this.byIdSql ??= `SELECT ${this.columns.map((c) => `"${c}"`).join(', ')} FROM "${this.table}" WHERE "deleted_at" IS NULL AND "id" = $1 LIMIT 1`;
    const [row] = await storage.repeated<RecordRow>({ sql: this.byIdSql, bindings: [id], options: TEXT_DATES }, `${this.databaseId}:${this.schemaVersion}`);
    return row;
  }

  /** A live record. */
  async read(db: Db, where: { id: string } | { number: number }): Promise<RecordRow | undefined> {
    return (await this.live(db).where(where).first(this.columns)) as RecordRow | undefined;
  }

  /**
   * Adds the values of computed fields (links, lookups…) to rows read or written without them:
   * one statement for all rows, none when `fields` has no computed field.
   */
  async fillComputed(db: Db, rows: RecordRow[], fields: LiveField[]): Promise<void> {
    const computed = fields.filter((f) => !f.column_name && f.fieldType.select);
    const missing = computed.length === 0 ? [] : rows.filter((row) => !(computedAlias(computed[0]) in row));
    if (missing.length === 0) return;
    const { cells, joins } = computedReads(computed, 'r');
    const { rows: values } = await db.raw(`SELECT r.id, ${cells.join(', ')} FROM ?? r ${joins.join(' ')} WHERE r.id = ANY(?::uuid[])`, [this.table, missing.map((row) => row.id)]);
    const byId = new Map((values as RecordRow[]).map((v) => [v.id, v]));
    for (const row of missing) {
      const found = byId.get(row.id);
      for (const f of computed) row[computedAlias(f)] = found?.[computedAlias(f)] ?? null;
    }
  }

  /** Copies of rows without their computed cells, to present them again as another reader sees them. */
  withoutComputed(rows: RecordRow[]): RecordRow[] {
    const aliases = this.fields.filter((f) => !f.column_name && f.fieldType.select).map(computedAlias);
    return rows.map((row) => {
      const copy = { ...row };
      for (const alias of aliases) delete copy[alias];
      return copy;
    });
  }

  /** The position of the last live record in manual order, or null when there is none. */
  async lastPosition(trx: Db, storage: Storage): Promise<string | null> {
    const statement = { sql: `SELECT position FROM "${this.table}" WHERE deleted_at IS NULL ORDER BY position DESC, id DESC LIMIT 1`, bindings: [] };
    const [row] = await storage.repeated<{ position: string }>(statement, this.databaseId, trx);
    return row?.position ?? null;
  }

  /**
   * The position of the live record right before or after `of` in manual order (`position`,
   * `id`), or, with `of` null, of the last (`before`) or first one; `except` (a record being
   * moved) is skipped.
   */
  async neighbourPosition(trx: Db, of: { position: string; id: string } | null, side: 'before' | 'after', except?: string): Promise<string | null> {
    const query = this.live(trx);
    if (except) query.whereNot({ id: except });
    if (of) query.whereRaw(`(position, id) ${side === 'before' ? '<' : '>'} (?, ?::uuid)`, [of.position, of.id]);
    const order = side === 'before' ? 'desc' : 'asc';
    const row = await query.orderBy([{ column: 'position', order }, { column: 'id', order }]).first('position');
    return row?.position ?? null;
  }

  async softDelete(trx: Db, id: string): Promise<void> {
    await trx(this.table).where({ id }).update({ deleted_at: trx.fn.now() });
  }

  /** Live (or, with `deleted`, soft-deleted) rows among `ids`, locked in id order so two bulk writers cannot deadlock. */
  async lockMany(trx: Db, ids: string[], deleted = false): Promise<RecordRow[]> {
    const query = trx(this.table).whereIn('id', ids).orderBy('id').forUpdate().options(TEXT_DATES);
    return (await (deleted ? query.whereNotNull('deleted_at') : query.whereNull('deleted_at')).select(this.columns)) as RecordRow[];
  }

  /** Deletes (sets `deleted_at`) or restores (clears it) rows; position and version stay as they were. */
  async setDeleted(trx: Db, ids: string[], deleted: boolean): Promise<void> {
    if (ids.length > 0) await trx(this.table).whereIn('id', ids).update({ deleted_at: deleted ? trx.fn.now() : null });
  }

  /** Soft-deleted records, newest deletion first, one keyset page. */
  async trash(db: Db, page: { limit?: number; cursor?: string }): Promise<Page<RecordRow & { deleted_at: Date }>> {
    const query = db(this.table).whereNotNull('deleted_at').select([...this.columns, 'deleted_at']);
    return keysetPage<RecordRow & { deleted_at: Date }>(db, query, TRASH_ORDER, page, { trash: this.databaseId });
  }
}

/** What `q` matches: the title column as stored (text titles hit the trigram index), others as text. */
function titleExpr(title: LiveField): string | null {
  const column = title.column_name ?? title.fieldType.systemColumn;
  if (!column) return null;
  const quoted = `"${column}"`;
  return title.column_name && title.fieldType.column?.(title.options) === 'text' ? quoted : `${quoted}::text`;
}
