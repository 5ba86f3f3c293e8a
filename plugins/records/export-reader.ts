import type { Knex } from 'knex';
import type { Database as Storage, Db } from '../../core/db.ts';
import { invalidField, validationFailed, type ErrorDetail } from '../../core/errors.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { SqlCondition } from '../databases/public.ts';
import { computedReads } from './computed-reads.ts';
import { compileFilter } from './filter-compiler.ts';
import type { RecordViewHooks } from './hooks.ts';
import type { LiveField } from './live-fields.ts';
import type { QueryService } from './query.service.ts';
import { afterCursor, orderBy } from './query-cursor.ts';
import { TEXT_DATES, type RecordRow } from './record-row.ts';
import type { RecordTable } from './record-table.ts';
import type { RecordService } from './records.service.ts';
import { sortKeys } from './sort-keys.ts';

/** What an export reads: a view (its filter and sorts, with the reader's override) or manual order, and the fields to present. */
export interface ExportRead {
  viewId?: string;
  fields: LiveField[];
  /** Records per page (each page one statement). */
  pageSize: number;
  /** Where the request's inputs are, for 422 pointers (`/query` for a URL's query string). */
  base: string;
  /** A cell as the caller writes it, from the value record reads give (null or undefined for none). */
  cell(field: LiveField, value: unknown): string;
  /** SQL of the same cell, byte for byte (NULL for an empty one), from the field's column (`col`), or undefined to have `cell` write it. */
  cellSql(field: LiveField, col: string): string | undefined;
}

/** A page of records: each one's cells, in the order of `fields`. */
export type ExportPage = string[][];

/**
 * Records read for an export (CSV, workspace export): the same rows, order and values as record queries through the
 * same view — the view's filter and sorts compiled by the same compilers — but paged for throughput: each page is one
 * statement from the table itself (no count, no cursor to encode, prepared once the text repeats), its keys kept as
 * text for the next page's keyset condition, and the next page is asked for while the caller writes this one. At
 * most two pages are held, whatever the table's size. Cells the caller can have PostgreSQL write (`cellSql`) come as
 * text straight from the statement; only the others are read as values and presented (names, links, lookups).
 */
export class RecordExportReader {
  constructor(
    private readonly db: Db,
    private readonly storage: Storage,
    private readonly views: RecordViewHooks,
    private readonly records: RecordService,
    private readonly query: QueryService,
  ) {}

  /** The table as `principal` reads it (fields reaching databases it cannot see read as empty): what `fields` must come from. */
  async table(principal: UserPrincipal, workspaceId: string, databaseId: string): Promise<RecordTable> {
    return this.records.seenBy(principal, await this.records.readTable(workspaceId, databaseId));
  }

  /**
   * Checks the view and compiles the read (422 with pointers, before anything is read), then answers the pages. The
   * first page is read here, so that a read that cannot run fails before the caller starts answering.
   */
  async open(principal: UserPrincipal, table: RecordTable, read: ExportRead): Promise<AsyncGenerator<ExportPage>> {
    const view = read.viewId
      ? await this.views.resolve.promise({ workspaceId: table.workspaceId, databaseId: table.databaseId, viewId: read.viewId, userId: principal.user.id })
      : undefined;
    if (read.viewId && !view) throw invalidField(`${read.base}/view_id`, 'No view with this id in this database.');
    const errors: ErrorDetail[] = [];
    const conditions: SqlCondition[] = [];
    const linked = (view?.filters.length ?? 0) > 0 ? await this.query.linkedTables(principal, table) : undefined;
    for (const filter of view?.filters ?? []) {
      const viewErrors: ErrorDetail[] = [];
      conditions.push(compileFilter(table, filter, { userId: principal.user.id, now: new Date() }, '', viewErrors, linked));
      if (viewErrors.length > 0) errors.push({ pointer: `${read.base}/view_id`, detail: `The view's filter no longer fits the fields: ${viewErrors.map((e) => e.detail).join(' ')}` });
    }
    const keys = sortKeys(table, view?.sorts, `${read.base}/view_id`, errors);
    if (errors.length > 0) throw validationFailed(errors);

    const quoted = `"${table.table}"`;
    const inSql = read.fields.map((field) => {
      const column = field.column_name ?? field.fieldType.systemColumn;
      return column ? read.cellSql(field, `${quoted}."${column}"`) : undefined;
    });
    const presented = read.fields.filter((_, i) => inSql[i] === undefined);
    // Only what the presented fields read (and the id computed reads look up by), none of a record's other columns.
    const sources = ['id', ...new Set(presented.flatMap((f) => f.column_name ?? f.fieldType.systemColumn ?? []))];
    const computed = computedReads(presented, quoted);
    const page = (after: Array<string | null> | undefined) => {
      const q = this.db(table.table)
        .select(presented.length > 0 ? sources.map((c) => `${table.table}.${c}`) : [])
        .select(computed.cells.map((cell) => this.db.raw(cell)))
        .select(inSql.flatMap((sql, i) => (sql === undefined ? [] : [this.db.raw(`COALESCE(${sql}, '') AS "__c${i}"`)])))
        .whereNull(`${table.table}.deleted_at`)
        .options(TEXT_DATES);
      for (const join of computed.joins) q.joinRaw(join);
      for (const join of new Set(keys.flatMap((k) => (k.join ? [k.join] : [])))) q.joinRaw(join);
      for (const c of conditions) q.whereRaw(c.sql, c.bindings as Knex.RawBinding[]);
      keys.forEach((k, i) => q.select(this.db.raw(`(${k.expr})::text AS ??`, [`__k${i}`])));
      if (after) {
        const condition = afterCursor(keys, after);
        q.whereRaw(condition.sql, condition.bindings as Knex.RawBinding[]);
      }
      q.orderByRaw(orderBy(keys)).limit(read.pageSize + 1);
      return this.storage.repeated(q, `export:${table.databaseId}:${table.schemaVersion}`) as Promise<Array<Record<string, string | null>>>;
    };
    // Named once, not per cell: a large export reads ten million cells.
    const sqlColumns = read.fields.map((_, i) => `__c${i}`);
    const present = async (rows: Array<Record<string, unknown>>): Promise<ExportPage> => {
      const values = presented.length > 0 ? await this.records.presentValues(this.db, table, rows as RecordRow[], presented) : [];
      return rows.map((row, r) => read.fields.map((field, i) => (inSql[i] === undefined ? read.cell(field, values[r][field.api_name]) : (row[sqlColumns[i]] as string))));
    };
    const first = await page(undefined);
    return (async function* pages() {
      let rows = first;
      for (;;) {
        const more = rows.length > read.pageSize;
        if (more) rows.length = read.pageSize;
        const last = rows[rows.length - 1];
        // Asked now, read while this page is presented and written.
        const next = more && last ? page(keys.map((_, i) => last[`__k${i}`])) : undefined;
        // A caller that stops early must not leave the next page's rejection unhandled.
        next?.catch(() => undefined);
        if (rows.length > 0) yield await present(rows);
        if (!next) return;
        rows = await next;
      }
    })();
  }
}
