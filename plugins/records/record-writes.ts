import type { Knex } from 'knex';
import type { Database as Storage, Db } from '../../core/db.ts';
import { newRecordId, TEXT_DATES, type RecordRow } from './record-row.ts';
import type { RecordTable } from './record-table.ts';

/** How updateRecord names the old values it returns beside the new. */
const OLD_PREFIX = '__old_';

/**
 * A new record with the cells of `sourceId` in `columns`, copied in SQL (no value leaves the
 * database, so every column type survives as stored); system columns get new values.
 */
export async function insertCopy(trx: Db, table: RecordTable, sourceId: string, columns: string[], system: { position: string; userId: string }): Promise<RecordRow> {
  const names = (list: string[]) => list.map(() => '??');
  const target = [...columns, 'id', 'position', 'created_by', 'updated_by'];
  const source = [...names(columns), '?::uuid', '?', '?::uuid', '?::uuid'];
  const { rows } = await trx
    .raw(`INSERT INTO ?? (${names(target).join(', ')}) SELECT ${source.join(', ')} FROM ?? WHERE id = ? RETURNING ${names(table.columns).join(', ')}`, [
      table.table,
      ...target,
      ...columns,
      newRecordId(),
      system.position,
      system.userId,
      system.userId,
      table.table,
      sourceId,
      ...table.columns,
    ])
    .options(TEXT_DATES);
  return rows[0] as RecordRow;
}

/**
 * Inserts rows (system columns and field columns); returns them in the order of their positions.
 * One statement whatever the count: each column travels as one text array, unnested and cast to
 * its type, so the text depends only on the columns and is prepared once per connection.
 */
export async function insertRecords(trx: Db, storage: Storage, table: RecordTable, rows: Array<Record<string, unknown>>): Promise<RecordRow[]> {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const types = new Map<string, string>([['id', 'uuid'], ['position', 'text'], ['created_by', 'uuid'], ['updated_by', 'uuid']]);
  for (const f of table.fields) if (f.column_name && f.fieldType.column) types.set(f.column_name, f.fieldType.column(f.options));
  const quote = (name: string) => `"${name}"`;
  const sql = `INSERT INTO ${quote(table.table)} (${columns.map(quote).join(', ')})
    SELECT ${columns.map((c, i) => `v${i}::${types.get(c)}`).join(', ')}
      FROM unnest(${columns.map((_, i) => `$${i + 1}::text[]`).join(', ')}) AS u(${columns.map((_, i) => `v${i}`).join(', ')})
    RETURNING ${table.columns.map(quote).join(', ')}`;
  const bindings = columns.map((c) => textArray(rows.map((row) => asText(row[c]))));
  const inserted = await storage.repeated<RecordRow>({ sql, bindings, options: TEXT_DATES }, `${table.databaseId}:${table.schemaVersion}`, trx);
  return inserted.sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0));
}

/** Updates a record the caller has locked (read FOR UPDATE); returns it as updated. */
export async function updateLockedRecord(trx: Db, table: RecordTable, id: string, columns: Record<string, unknown>, userId: string): Promise<RecordRow> {
  const [row] = (await trx(table.table)
    .where({ id })
    .update({ ...columns, version: trx.raw('version + 1'), updated_at: trx.fn.now(), updated_by: userId })
    .returning(table.columns)
    .options(TEXT_DATES)) as RecordRow[];
  return row;
}

/**
 * Updates one live record in one statement that also locks it and answers it as it was (a
 * sub-select FOR UPDATE): `before` is `after` with the old cells, version and last edit.
 * Undefined when the record is not live, or when `version` is given and is not the current one.
 */
export async function updateRecord(trx: Db, storage: Storage, table: RecordTable, id: string, columns: Record<string, unknown>, userId: string, version?: number): Promise<{ before: RecordRow; after: RecordRow } | undefined> {
  const changed = Object.keys(columns);
  const old = ['version', 'updated_at', 'updated_by', ...changed];
  // Prepared once its text (the set of columns changed) repeats, for the fields as they are: the answer's types follow them.
  const rows = await storage.repeated<RecordRow>(trx.raw(
    `UPDATE ?? AS t SET ${changed.map(() => '?? = ?, ').join('')}version = t.version + 1, updated_at = now(), updated_by = ?
       FROM (SELECT ${old.map(() => '??').join(', ')}, id FROM ?? WHERE id = ? AND deleted_at IS NULL FOR UPDATE) AS o
      WHERE t.id = o.id${version === undefined ? '' : ' AND o.version = ?'}
      RETURNING ${table.columns.map(() => 't.??').join(', ')}, ${old.map(() => 'o.?? AS ??').join(', ')}`,
    [
      table.table,
      ...changed.flatMap((c) => [c, asBinding(columns[c])]),
      userId,
      ...old,
      table.table,
      id,
      ...(version === undefined ? [] : [version]),
      ...table.columns,
      ...old.flatMap((c) => [c, `${OLD_PREFIX}${c}`]),
    ] as Knex.RawBinding[],
  ).options(TEXT_DATES), `${table.databaseId}:${table.schemaVersion}`, trx);
  const [row] = rows;
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
export async function updateRecords(trx: Db, table: RecordTable, updates: Array<{ id: string; columns: Record<string, unknown> }>, userId: string): Promise<Map<string, RecordRow>> {
  const types = new Map(table.fields.flatMap((f) => (f.column_name && f.fieldType.column ? [[f.column_name, f.fieldType.column(f.options)] as const] : [])));
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
        WHERE t.id = v.id RETURNING ${table.columns.map(() => 't.??').join(', ')}`,
      [
        table.table,
        ...columns.flatMap((c) => [c, c]),
        userId,
        ...group.flatMap((u) => [u.id, ...columns.map((c) => asBinding(u.columns[c]))]),
        ...columns,
        ...table.columns,
      ] as Knex.RawBinding[],
    ).options(TEXT_DATES);
    for (const row of rows as RecordRow[]) out.set(row.id, row);
  }
  return out;
}

/**
 * A column value as a raw binding: knex.raw would spread an array into a list of placeholders,
 * so arrays (multi-select ids) travel as PostgreSQL array literals, cast by the statement.
 */
function asBinding(value: unknown): Knex.RawBinding {
  if (!Array.isArray(value)) return value as Knex.RawBinding;
  return textArray(value.map(String));
}

/**
 * Texts as one PostgreSQL array literal (`{"a","b",NULL}`), built by one join: node-postgres encodes a JS array
 * element by element into nested concatenations, the largest allocation of an import of 100,000 rows.
 */
function textArray(values: Array<string | null>): string {
  return `{${values.map((v) => (v === null ? 'NULL' : `"${v.includes('"') || v.includes('\\') ? v.replace(ARRAY_ESCAPED, '\\$&') : v}"`)).join(',')}}`;
}

/** What a quoted array element escapes with a backslash. */
const ARRAY_ESCAPED = /["\\]/g;

/** A column value as the text PostgreSQL reads it back as (arrays as array literals). */
function asText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return asBinding(value) as string;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
