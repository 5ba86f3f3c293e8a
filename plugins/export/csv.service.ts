import { Readable } from 'node:stream';
import { AppError, invalidField } from '../../core/errors.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { DatabaseService } from '../databases/public.ts';
import type { ExportPage, LiveField, RecordExportReader, RecordTable } from '../records/public.ts';
import type { ViewService } from '../views/public.ts';
import { neutralisedCell, rawCell } from './csv-cell.ts';
import type { CsvQuery } from './schemas.ts';

/** A CSV about to be streamed: its file name and its bytes, read page by page as they are consumed. */
export interface CsvFile {
  filename: string;
  stream: Readable;
}

/**
 * CSV export of a database or a view: the records in the view's order and filter (its own and the caller's override)
 * or in manual order, read by the records plugin's export reader one keyset page at a time, each page written as one
 * chunk. PostgreSQL writes the text of every cell whose type has an exact SQL twin (`csv.formatSql`); JS formats the
 * rest (names, links, lookups), quotes them all and, unless `formulas=raw`, neutralises formula-like cells. The
 * stream pulls the next page only when the reader wants more, so memory holds a page or two whatever the size of the
 * table. Everything the request can be refused for (fields, view) is checked, and the
 * first page read, before the first byte is sent.
 */
export class CsvExports {
  constructor(
    private readonly reader: RecordExportReader,
    private readonly databases: DatabaseService,
    private readonly views: () => ViewService | undefined,
    /** Records per page: in manual order, and through a view (whose sort or filter may be served by no index and run again for every page). */
    private readonly pageSize: { records: number; view: number },
  ) {}

  async open(principal: UserPrincipal, workspaceId: string, databaseId: string, input: CsvQuery): Promise<CsvFile> {
    const table = await this.reader.table(principal, workspaceId, databaseId);
    const database = await this.databases.get(workspaceId, databaseId);
    const view = input.view_id ? await this.view(workspaceId, databaseId, input.view_id) : undefined;
    const visible = visibleFields(table, view);
    const columns = input.fields !== undefined ? chosenFields(table, input.fields, visible) : visible;
    const fields = [...new Set(columns)];
    const pages = await this.reader.open(principal, table, {
      ...(input.view_id ? { viewId: input.view_id } : {}),
      fields,
      pageSize: input.view_id ? this.pageSize.view : this.pageSize.records,
      base: '/query',
      cell: cellText,
      cellSql: (field, col) => field.fieldType.csv.formatSql?.(col, field),
    });
    const filename = view ? `${database.name} - ${view.name}.csv` : `${database.name}.csv`;
    // One page ahead at most: the stream asks for the next only when the client has taken this one.
    const csvCell = input.formulas === 'raw' ? rawCell : neutralisedCell;
    return { filename, stream: Readable.from(csvChunks(columns, fields, pages, csvCell), { highWaterMark: 1 }) };
  }

  private async view(workspaceId: string, databaseId: string, viewId: string): Promise<{ name: string; hidden_fields: string[]; field_order: string[] }> {
    const views = this.views();
    if (!views) throw invalidField('/query/view_id', 'Views are not enabled on this instance.');
    try {
      return await views.get(workspaceId, databaseId, viewId);
    } catch (err) {
      if (err instanceof AppError && err.status === 404) throw invalidField('/query/view_id', 'No view with this id in this database.');
      throw err;
    }
  }
}

/** The header row, then one chunk of CSV per page of records (read once per field, a repeated column written again). */
async function* csvChunks(columns: LiveField[], fields: LiveField[], pages: AsyncIterable<ExportPage>, csvCell: (text: string) => string): AsyncGenerator<string> {
  yield `${columns.map((f) => csvCell(f.name)).join(',')}\r\n`;
  const at = columns.map((f) => fields.indexOf(f));
  for await (const page of pages) {
    let chunk = '';
    for (const cells of page) {
      // No column at all still writes one (empty) line per record, as csv-stringify did.
      let line = at.length > 0 ? csvCell(cells[at[0]]) : '';
      for (let i = 1; i < at.length; i++) line += `,${csvCell(cells[at[i]])}`;
      chunk += `${line}\r\n`;
    }
    yield chunk;
  }
}

/** A cell as its field type writes it as text (`csv.format`: labels, titles, names, ISO dates); empty for no value. */
function cellText(field: LiveField, value: unknown): string {
  if (value === null || value === undefined) return '';
  return field.fieldType.csv.format(value, field);
}

/** `fields=`: api_names or ids, in the order given, among the fields shown (a view's hidden ones are not); every other one is named in the 422. */
function chosenFields(table: RecordTable, list: string, shown: LiveField[]): LiveField[] {
  const refs = list.split(',').map((ref) => ref.trim());
  const unknown = refs.filter((ref) => !table.field(ref));
  if (unknown.length > 0) {
    throw invalidField('/query/fields', `No field ${unknown.map((ref) => (ref === '' ? '(empty)' : `"${ref}"`)).join(', ')} in this database.`);
  }
  const hidden = refs.filter((ref) => !shown.includes(table.field(ref)!));
  if (hidden.length > 0) throw invalidField('/query/fields', `${hidden.map((ref) => `"${ref}"`).join(', ')} ${hidden.length === 1 ? 'is' : 'are'} hidden in this view.`);
  return refs.map((ref) => table.field(ref)!);
}

/** A view's visible fields in its order (fields it does not order follow in the database's order); without a view, every field. */
function visibleFields(table: RecordTable, view: { hidden_fields: string[]; field_order: string[] } | undefined): LiveField[] {
  if (!view) return table.fields;
  const hidden = new Set(view.hidden_fields);
  const ordered = view.field_order.flatMap((name) => table.byApiName.get(name) ?? []);
  const rest = table.fields.filter((f) => !ordered.includes(f));
  return [...ordered, ...rest].filter((f) => !hidden.has(f.api_name));
}
