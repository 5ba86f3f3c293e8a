import type { Database as Storage, Db } from '../../core/db.ts';
import type { Jobs } from '../../core/jobs.ts';
import type { FieldTypeRegistry } from './field-types/registry.ts';
import type { DatabaseHooks } from './hooks.ts';

export const SYNC_JOB = 'databases.sync-view-indexes';

/**
 * Index names: `<table>_v_` and 20 hex digits of the field id (80 bits; PostgreSQL keeps 63 bytes
 * of a name), so the ones this service owns are recognisable; `_d` after them for a descending one.
 */
export const indexNameOf = (table: string, fieldId: string, direction: 'asc' | 'desc' = 'asc') =>
  `${table}_v_${fieldId.replace(/-/g, '').slice(0, 20)}${direction === 'desc' ? '_d' : ''}`;

interface FieldRow {
  id: string;
  type: string;
  options: Record<string, unknown>;
  column_name: string | null;
}

/** Fields a filter AST names (ids or api_names, `link.field` as it is), in the order they appear. */
export function filterFieldRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const child of node) filterFieldRefs(child, out);
  else if (node && typeof node === 'object') {
    const n = node as Record<string, unknown>;
    if (typeof n.field === 'string') out.push(n.field);
    for (const key of ['and', 'or', 'not']) if (key in n) filterFieldRefs(n[key], out);
  }
  return out;
}

/**
 * `(field, id)` btree indexes, partial on live rows, for the fields that a database's views sort
 * or filter on (ARCHITECTURE.md "Storage"): sorted fields first (the default view's first), then
 * filtered ones, at most `max` per table. Text-like fields are indexed on their sort key
 * (`lower(col) COLLATE "C"`), others on the column. A sort is served only by an index in its direction:
 * records sort `key DESC NULLS LAST, id ASC`, which no ascending `(key, id)` index serves, read
 * backwards or not (it gives `id DESC` and, for a nullable key, the empty cells first); so a field
 * sorted both ways has an index each way, each counted in the budget. A filter is served by either; a
 * field only filtered on is indexed ascending. Built CONCURRENTLY on PostgreSQL, so writes
 * go on meanwhile; an index that failed half-way (invalid) is rebuilt. Indexes of fields no longer
 * wanted (or wanted the other way) are dropped. Run by the job `databases.sync-view-indexes` whenever views change.
 */
export class ViewIndexService {
  constructor(
    private readonly storage: Storage,
    private readonly jobs: Jobs,
    private readonly types: FieldTypeRegistry,
    /** Indexes at most per table. */
    readonly budget: number,
    private readonly hooks: DatabaseHooks,
  ) {}

  /** Queues a sync of the database's view indexes, sent only if `trx` commits. */
  async schedule(trx: Db, databaseId: string): Promise<void> {
    await this.jobs.send(SYNC_JOB, { database_id: databaseId }, trx);
  }

  /** One sync per database at a time (two jobs may be queued by quick successive edits). */
  sync(databaseId: string): Promise<{ created: string[]; dropped: string[] }> {
    return this.storage.withSetupLock(`view-indexes:${databaseId}`, () => this.syncNow(databaseId));
  }

  private async syncNow(databaseId: string): Promise<{ created: string[]; dropped: string[] }> {
    const db = this.storage.knex;
    const table = await this.tableOf(databaseId);
    if (!table) return { created: [], dropped: [] };
    const queries = await this.hooks.indexedQueries.promise([], { db, databaseId });
    const fields = (await db('fields').where({ database_id: databaseId }).whereNull('deleted_at').whereNotNull('column_name').select('id', 'type', 'options', 'api_name', 'column_name')) as Array<FieldRow & { api_name: string }>;
    const byRef = new Map(fields.flatMap((f) => [[f.id, f], [f.api_name, f]]));

    const named = [
      ...queries.flatMap((q) => (q.sorts ?? []).map((s) => ({ ref: s.field, direction: s.direction ?? 'asc', sorted: true }))),
      ...queries.flatMap((q) => filterFieldRefs(q.filter).map((ref) => ({ ref, direction: 'asc' as const, sorted: false }))),
    ];
    const others = await this.othersLeading(db, table);
    const wanted = new Map<string, string>();
    // The field ids with an index in either direction (what a filter needs), and `<field id> <direction>` (a sort).
    const indexed = new Set<string>();
    // The orders served once this sync is done, `<key> <direction>` (`sort_indexes`).
    const orders = new Set<string>();
    for (const [column, directions] of others) for (const direction of directions) orders.add(`"${column}" ${direction}`);
    for (const { ref, direction, sorted } of named) {
      const field = byRef.get(ref);
      const expr = field && this.keyOf(field);
      if (!field || !expr || indexed.has(sorted ? `${field.id} ${direction}` : field.id)) continue;
      // Led by an index of the table's own (made by hand, by a migration) that serves this use: not built twice.
      const served = others.get(field.column_name!);
      if (expr === `"${field.column_name}"` && served && (!sorted || served.has(direction))) {
        for (const way of served) indexed.add(`${field.id} ${way}`);
        indexed.add(field.id);
        continue;
      }
      if (wanted.size >= this.budget) continue;
      indexed.add(field.id).add(`${field.id} ${direction}`);
      const name = indexNameOf(table, field.id, direction);
      wanted.set(name, direction === 'desc' ? `(${expr}) DESC NULLS LAST, id` : `(${expr}), id`);
      orders.add(`${expr} ${direction}`);
    }

    const existing = (await db.raw(
      `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indrelid = to_regclass(?) AND c.relname LIKE ?`,
      [table, `${table}\\_v\\_%`],
    )).rows as Array<{ name: string; valid: boolean }>;
    const concurrently = this.storage.kind === 'postgres' ? 'CONCURRENTLY ' : '';
    const dropped: string[] = [];
    for (const index of existing) {
      if (wanted.has(index.name) && index.valid) {
        wanted.delete(index.name);
        continue;
      }
      await db.raw(`DROP INDEX ${concurrently}IF EXISTS ??`, [index.name]);
      dropped.push(index.name);
    }
    for (const [name, expr] of wanted) {
      await db.raw(`CREATE INDEX ${concurrently}IF NOT EXISTS ?? ON ?? (${expr}) WHERE deleted_at IS NULL`, [name, table]);
    }
    // Only when it changed: the update tells every process's catalog to read the database again.
    const served = JSON.stringify([...orders].sort());
    await db('databases').where({ id: databaseId }).whereRaw('sort_indexes <> ?::jsonb', [served]).update({ sort_indexes: served });
    return { created: [...wanted.keys()], dropped: dropped.filter((d) => !wanted.has(d)) };
  }

  /**
   * The columns that lead a valid btree index on live rows (no predicate, or `deleted_at IS NULL`) other than this
   * service's own, with the directions it serves a `key, id` sort in: records sort `key ASC NULLS LAST` or `key DESC
   * NULLS LAST`, so an ascending index (nulls last, the default) serves the first and a `DESC NULLS LAST` one the
   * second; a plain `DESC` puts the empty cells first and serves neither.
   */
  private async othersLeading(db: Db, table: string): Promise<Map<string, Set<'asc' | 'desc'>>> {
    const { rows } = await db.raw(
      `SELECT a.attname AS column_name, (i.indoption[0] & 3) = 1 AS descending
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
        WHERE i.indrelid = to_regclass(?) AND i.indisvalid AND am.amname = 'btree' AND c.relname NOT LIKE ? AND (i.indoption[0] & 3) IN (0, 1)
          AND (i.indpred IS NULL OR pg_get_expr(i.indpred, i.indrelid) = '(deleted_at IS NULL)')`,
      [table, `${table}\\_v\\_%`],
    );
    const leading = new Map<string, Set<'asc' | 'desc'>>();
    for (const r of rows as Array<{ column_name: string; descending: boolean }>) {
      const directions = leading.get(r.column_name) ?? new Set();
      directions.add(r.descending ? 'desc' : 'asc');
      leading.set(r.column_name, directions);
    }
    return leading;
  }

  /** The name of a database's records table; undefined when there is no such database. */
  async tableOf(databaseId: string): Promise<string | undefined> {
    const row = (await this.storage.knex('databases').where({ id: databaseId }).first('table_name')) as { table_name: string } | undefined;
    return row?.table_name;
  }

  /**
   * The indexes this service keeps on a database's table, by field: whether each is usable yet (a concurrent build
   * not finished, or failed, is not), its size, and how often PostgreSQL used it since its statistics were reset.
   */
  async built(databaseId: string): Promise<Array<{ fieldId: string; direction: 'asc' | 'desc'; name: string; valid: boolean; bytes: number; scans: number }>> {
    const db = this.storage.knex;
    const table = await this.tableOf(databaseId);
    if (!table) return [];
    const fields = (await db('fields').where({ database_id: databaseId }).pluck('id')) as string[];
    const byName = new Map(fields.flatMap((id) => (['asc', 'desc'] as const).map((direction) => [indexNameOf(table, id, direction), { fieldId: id, direction }] as const)));
    const { rows } = await db.raw(
      `SELECT c.relname AS name, i.indisvalid AS valid, pg_relation_size(c.oid)::bigint AS bytes, coalesce(s.idx_scan, 0)::bigint AS scans
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         LEFT JOIN pg_stat_user_indexes s ON s.indexrelid = i.indexrelid
        WHERE i.indrelid = to_regclass(?) AND c.relname LIKE ?`,
      [table, `${table}\\_v\\_%`],
    );
    return (rows as Array<{ name: string; valid: boolean; bytes: string; scans: string }>).flatMap((r) => {
      const of = byName.get(r.name);
      return of ? [{ ...of, name: r.name, valid: r.valid, bytes: Number(r.bytes), scans: Number(r.scans) }] : [];
    });
  }

  /** What to index for a field: its sort key when that is a plain expression of the column, else the column. */
  private keyOf(field: FieldRow): string | null {
    const type = this.types.get(field.type);
    if (!type || !field.column_name) return null;
    const col = `"${field.column_name}"`;
    return type.sortExpr && type.sortIndexable ? type.sortExpr(col, { id: field.id, api_name: '', type: field.type, options: field.options }) : col;
  }
}
