import type { Knex } from 'knex';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import type { Database as Storage, Db } from '../../core/db.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import { escapeLike, type CellContext, type FieldMeta, type FieldType, type FieldTypeRegistry, type SqlCondition } from '../databases/public.ts';

/** A live field as the records engine uses it: its metadata, its column and its type. */
export interface LiveField extends FieldMeta {
  column_name: string | null;
  is_title: boolean;
  fieldType: FieldType;
  /** The live field of another database that `options.target_field_id` names (lookups, rollups). */
  target?: TargetField;
}

/** A field of another database a computed field reads. */
export interface TargetField extends FieldMeta {
  column_name: string | null;
  fieldType: FieldType;
}

/** A record row as selected: the system columns, then one column per field (`f_<id>`). */
export interface RecordRow {
  id: string;
  number: string | number;
  position: string;
  version: number;
  /** Timestamps arrive as PostgreSQL prints them when read with TEXT_DATES. */
  created_at: Date | string;
  created_by: string | null;
  updated_at: Date | string;
  updated_by: string | null;
  [column: string]: unknown;
}

/** The name a computed field's value has in a row (types with `select`, no column). */
export function computedAlias(field: FieldMeta): string {
  return `c_${field.id.replace(/-/g, '')}`;
}

/**
 * The SQL reading the computed fields among `fields` for the record aliased `row`: a cell per
 * field, and LATERAL joins to add after `row`'s table. Fields whose aggregates go over the same
 * rows (a link and the lookups through it) share one join, which visits those rows once; a field
 * alone on its rows stays a scalar subquery.
 */
export function computedReads(fields: LiveField[], row: string): { cells: string[]; joins: string[] } {
  const cells: string[] = [];
  const shared = new Map<string, Array<{ field: LiveField; value: string }>>();
  for (const field of fields) {
    if (field.column_name || !field.fieldType.select) continue;
    const aggregate = field.fieldType.aggregate?.(field);
    if (!aggregate) {
      cells.push(`${field.fieldType.select(field, row)} AS "${computedAlias(field)}"`);
      continue;
    }
    const from = aggregate.from(row);
    const members = shared.get(from) ?? [];
    shared.set(from, [...members, { field, value: aggregate.value }]);
  }
  const joins: string[] = [];
  for (const [from, members] of shared) {
    if (members.length === 1) {
      cells.push(`(SELECT ${members[0].value} ${from}) AS "${computedAlias(members[0].field)}"`);
      continue;
    }
    const alias = `cg${joins.length}`;
    joins.push(`LEFT JOIN LATERAL (SELECT ${members.map((m) => `${m.value} AS "${computedAlias(m.field)}"`).join(', ')} ${from}) AS "${alias}" ON true`);
    for (const m of members) cells.push(`"${alias}"."${computedAlias(m.field)}" AS "${computedAlias(m.field)}"`);
  }
  return { cells, joins };
}

/** Where a field's value is in a row: its column, the system column it reads, or its computed alias. */
export function sourceOf(field: LiveField): string | undefined {
  return field.column_name ?? field.fieldType.systemColumn ?? (field.fieldType.select ? computedAlias(field) : undefined);
}

/** How updateOne names the old values it returns beside the new. */
const OLD_PREFIX = '__old_';

const SYSTEM_COLUMNS = ['id', 'number', 'position', 'version', 'created_at', 'created_by', 'updated_at', 'updated_by'];
/**
 * Query options (node-postgres `types`, PGlite `parsers`; each ignores the other's) that leave
 * timestamps and days as PostgreSQL prints them: the field types format them (time.ts), and
 * building a Date per cell was the largest cost of a page of records.
 */
const keepText = (value: string) => value;
const TEXT_DATE_OIDS = [1082, 1114, 1184];
export const TEXT_DATES = {
  types: { getTypeParser: (oid: number, format?: string) => (TEXT_DATE_OIDS.includes(oid) ? keepText : pg.types.getTypeParser(oid, format as 'text')) },
  parsers: Object.fromEntries(TEXT_DATE_OIDS.map((oid) => [oid, keepText])),
};

const TRASH_ORDER = { keys: [{ column: 'deleted_at', type: 'timestamptz' as const }, { column: 'id', type: 'uuid' as const }], direction: 'desc' as const };

/**
 * One database's records table: every SQL statement the records engine runs on it. Built once
 * per request from the live fields (one query), so the SELECT list names exactly their columns.
 * Table and column names come from ids (databases/names.ts), quoted by knex.
 */
export class RecordTable {
  readonly byApiName: Map<string, LiveField>;
  readonly columns: string[];
  /** Fields that react to writes (see FieldType.reaction), each with the columns it watches. */
  private readonly reactions: Array<{ field: LiveField; columns: Set<string> }>;

  private constructor(
    readonly databaseId: string,
    readonly workspaceId: string,
    /** `databases.schema_version` when the fields were read: writers compare it under the database row's lock. */
    readonly schemaVersion: number,
    readonly table: string,
    readonly fields: LiveField[],
  ) {
    this.byApiName = new Map(fields.map((f) => [f.api_name, f]));
    this.columns = columnsFor(fields);
    this.reactions = fields.flatMap((field) => {
      const watched = new Set(field.fieldType.reaction?.watches(field) ?? []);
      const columns = fields.flatMap((f) => (watched.has(f.id) && f.column_name ? [f.column_name] : []));
      return columns.length > 0 ? [{ field, columns: new Set(columns) }] : [];
    });
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
    return new RecordTable(databaseId, first.workspace_id, Number(first.schema_version), first.table_name, liveFields(rows, types));
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
    return new RecordTable(this.databaseId, this.workspaceId, this.schemaVersion, this.table, fields);
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

  /**
   * A new record with the cells of `sourceId` in `columns`, copied in SQL (no value leaves the
   * database, so every column type survives as stored); system columns get new values.
   */
  async insertCopy(trx: Db, sourceId: string, columns: string[], system: { position: string; userId: string }): Promise<RecordRow> {
    const names = (list: string[]) => list.map(() => '??');
    const target = [...columns, 'id', 'position', 'created_by', 'updated_by'];
    const source = [...names(columns), '?::uuid', '?', '?::uuid', '?::uuid'];
    const { rows } = await trx
      .raw(`INSERT INTO ?? (${names(target).join(', ')}) SELECT ${source.join(', ')} FROM ?? WHERE id = ? RETURNING ${names(this.columns).join(', ')}`, [
        this.table,
        ...target,
        ...columns,
        newRecordId(),
        system.position,
        system.userId,
        system.userId,
        this.table,
        sourceId,
        ...this.columns,
      ])
      .options(TEXT_DATES);
    return rows[0] as RecordRow;
  }

  /**
   * Inserts rows (system columns and field columns); returns them in the order of their positions.
   * One statement whatever the count: each column travels as one text array, unnested and cast to
   * its type, so the text depends only on the columns and is prepared once per connection.
   */
  async insert(trx: Db, storage: Storage, rows: Array<Record<string, unknown>>): Promise<RecordRow[]> {
    const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
    const types = new Map<string, string>([['id', 'uuid'], ['position', 'text'], ['created_by', 'uuid'], ['updated_by', 'uuid']]);
    for (const f of this.fields) if (f.column_name && f.fieldType.column) types.set(f.column_name, f.fieldType.column(f.options));
    const quote = (name: string) => `"${name}"`;
    const sql = `INSERT INTO ${quote(this.table)} (${columns.map(quote).join(', ')})
      SELECT ${columns.map((c, i) => `v${i}::${types.get(c)}`).join(', ')}
        FROM unnest(${columns.map((_, i) => `$${i + 1}::text[]`).join(', ')}) AS u(${columns.map((_, i) => `v${i}`).join(', ')})
      RETURNING ${this.columns.map(quote).join(', ')}`;
    const bindings = columns.map((c) => rows.map((row) => asText(row[c])));
    const inserted = await storage.repeated<RecordRow>({ sql, bindings, options: TEXT_DATES }, `${this.databaseId}:${this.schemaVersion}`, trx);
    return inserted.sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0));
  }

  async update(trx: Db, id: string, columns: Record<string, unknown>, userId: string): Promise<RecordRow> {
    const [row] = (await trx(this.table)
      .where({ id })
      .update({ ...columns, version: trx.raw('version + 1'), updated_at: trx.fn.now(), updated_by: userId })
      .returning(this.columns)
      .options(TEXT_DATES)) as RecordRow[];
    return row;
  }

  /**
   * Updates one live record in one statement that also locks it and answers it as it was (a
   * sub-select FOR UPDATE): `before` is `after` with the old cells, version and last edit.
   * Undefined when the record is not live, or when `version` is given and is not the current one.
   */
  async updateOne(trx: Db, id: string, columns: Record<string, unknown>, userId: string, version?: number): Promise<{ before: RecordRow; after: RecordRow } | undefined> {
    const changed = Object.keys(columns);
    const old = ['version', 'updated_at', 'updated_by', ...changed];
    const { rows } = await trx.raw(
      `UPDATE ?? AS t SET ${changed.map(() => '?? = ?, ').join('')}version = t.version + 1, updated_at = now(), updated_by = ?
         FROM (SELECT ${old.map(() => '??').join(', ')}, id FROM ?? WHERE id = ? AND deleted_at IS NULL FOR UPDATE) AS o
        WHERE t.id = o.id${version === undefined ? '' : ' AND o.version = ?'}
        RETURNING ${this.columns.map(() => 't.??').join(', ')}, ${old.map(() => 'o.?? AS ??').join(', ')}`,
      [
        this.table,
        ...changed.flatMap((c) => [c, asBinding(columns[c])]),
        userId,
        ...old,
        this.table,
        id,
        ...(version === undefined ? [] : [version]),
        ...this.columns,
        ...old.flatMap((c) => [c, `${OLD_PREFIX}${c}`]),
      ] as Knex.RawBinding[],
    ).options(TEXT_DATES);
    const [row] = rows as RecordRow[];
    if (!row) return undefined;
    const after = { ...row } as RecordRow;
    const before = { ...row } as RecordRow;
    for (const c of old) {
      before[c] = row[`${OLD_PREFIX}${c}`];
      delete after[`${OLD_PREFIX}${c}`];
      delete before[`${OLD_PREFIX}${c}`];
    }
    return { before, after };
  }

  /**
   * Updates many rows, one statement per set of columns changed (`UPDATE … FROM (VALUES …)`)
   * rather than one per row; returns the rows as updated, by id.
   */
  async updateMany(trx: Db, updates: Array<{ id: string; columns: Record<string, unknown> }>, userId: string): Promise<Map<string, RecordRow>> {
    const types = new Map(this.fields.flatMap((f) => (f.column_name && f.fieldType.column ? [[f.column_name, f.fieldType.column(f.options)] as const] : [])));
    const groups = new Map<string, typeof updates>();
    for (const update of updates) {
      const signature = Object.keys(update.columns).sort().join(',');
      groups.set(signature, [...(groups.get(signature) ?? []), update]);
    }
    const out = new Map<string, RecordRow>();
    for (const [signature, group] of groups) {
      // Only outside cells (links) changed: the row still gets a new version and last edit.
      const columns = signature === '' ? [] : signature.split(',');
      const tuple = `(${['?::uuid', ...columns.map((c) => `?::${types.get(c)}`)].join(', ')})`;
      const { rows } = await trx.raw(
        `UPDATE ?? AS t SET ${columns.map(() => '?? = v.??, ').join('')}version = t.version + 1, updated_at = now(), updated_by = ?::uuid
           FROM (VALUES ${group.map(() => tuple).join(', ')}) AS v(${['id', ...columns.map(() => '??')].join(', ')})
          WHERE t.id = v.id RETURNING ${this.columns.map(() => 't.??').join(', ')}`,
        [
          this.table,
          ...columns.flatMap((c) => [c, c]),
          userId,
          ...group.flatMap((u) => [u.id, ...columns.map((c) => asBinding(u.columns[c]))]),
          ...columns,
          ...this.columns,
        ] as Knex.RawBinding[],
      ).options(TEXT_DATES);
      for (const row of rows as RecordRow[]) out.set(row.id, row);
    }
    return out;
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
    return keysetPage<RecordRow & { deleted_at: Date }>(db, query, TRASH_ORDER, page);
  }
}

/**
 * A column value as a raw binding: knex.raw would spread an array into a list of placeholders,
 * so arrays (multi-select ids) travel as PostgreSQL array literals, cast by the statement.
 */
function asBinding(value: unknown): Knex.RawBinding {
  if (!Array.isArray(value)) return value as Knex.RawBinding;
  return `{${value.map((v) => `"${String(v).replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}

/**
 * A new record's id: a UUID whose first bits are the time (version 7), so new rows go to the
 * right edge of the primary key instead of random pages (measured: bulk inserts ~25% faster,
 * and far less WAL after a checkpoint). Clients still treat ids as opaque.
 */
export function newRecordId(): string {
  return uuidv7();
}

/** A column value as the text PostgreSQL reads it back as (arrays as array literals). */
function asText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return asBinding(value) as string;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The system columns, then the columns of `fields` that have one. */
function columnsFor(fields: LiveField[]): string[] {
  return [...SYSTEM_COLUMNS, ...fields.flatMap((f) => (f.column_name ? [f.column_name] : []))];
}

function liveFields(rows: Array<Record<string, any>>, types: FieldTypeRegistry): LiveField[] {
  // A field whose type's plugin is disabled is invisible until the plugin is back.
  return rows.flatMap((r) => {
    const fieldType = types.get(r.type);
    if (!fieldType) return [];
    const targetType = r.target_id ? types.get(r.target_type) : undefined;
    const target = targetType ? { id: r.target_id, api_name: r.target_api_name, type: r.target_type, options: r.target_options, column_name: r.target_column_name, fieldType: targetType } : undefined;
    return [{ id: r.id, api_name: r.api_name, type: r.type, options: r.options, column_name: r.column_name, is_title: r.is_title, fieldType, ...(target ? { target } : {}) }];
  });
}

/** What `q` matches: the title column as stored (text titles hit the trigram index), others as text. */
function titleExpr(title: LiveField): string | null {
  const column = title.column_name ?? title.fieldType.systemColumn;
  if (!column) return null;
  const quoted = `"${column}"`;
  return title.column_name && title.fieldType.column?.(title.options) === 'text' ? quoted : `${quoted}::text`;
}
