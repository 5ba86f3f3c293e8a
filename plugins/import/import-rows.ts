import { escapePointer } from '../../core/schema.ts';
import type { ErrorDetail } from '../../core/errors.ts';
import type { DecodedValues, RecordBatchWriter } from '../records/public.ts';
import { cellValue, checkNewCell } from './cells.ts';
import { ColumnDetector } from './detect.ts';
import type { Plan } from './mapping.ts';
import type { RowError } from './schemas.ts';

/** Problems kept for the answer; rows are still counted past them. */
export const MAX_ERRORS = 100;

export interface RowsOutcome {
  rows: number;
  /** Rows with at least one problem. */
  invalid: number;
  errors: RowError[];
  created: number;
  /** Per header, in file order (dry runs only). */
  detectors?: ColumnDetector[];
}

export interface RowsRun {
  plan: Plan;
  /** Decodes and checks cells of existing fields, and writes when `write` is set. */
  writer: RecordBatchWriter;
  /** Write the rows (a real import) or only check them (a dry run: new fields are checked by their type). */
  write: boolean;
  batchRows: number;
  /** Called every `batchRows` rows with the data rows read so far. */
  progress?: (done: number) => Promise<void> | void;
}

interface Pending {
  row: number;
  decoded: DecodedValues;
}

/**
 * Reads the data rows (`records`, in batches, the header row already taken), converting each cell with its field type's
 * CSV grammar and checking it as an API write would. Writes go in batches while no row has failed; after the
 * first bad row nothing more is written (the caller rolls back) but rows are still checked, so the answer lists
 * the first 100 problems and counts every bad row.
 */
export async function importRows(records: AsyncIterable<string[][]>, run: RowsRun): Promise<RowsOutcome> {
  const { plan, writer } = run;
  const width = plan.headers.length;
  const headerOf = new Map(plan.targets.filter((t) => !t.create || run.write).map((t) => [`/values/${escapePointer(t.field.api_name)}`, t.header]));
  const out: RowsOutcome = { rows: 0, invalid: 0, errors: [], created: 0, ...(run.write ? {} : { detectors: plan.headers.map(() => new ColumnDetector()) }) };
  const fail = (found: RowError[]) => {
    out.invalid++;
    for (const e of found) if (out.errors.length < MAX_ERRORS) out.errors.push(e);
  };
  let batch: Pending[] = [];
  // One batch is written while the next is read and converted: the database and this process work side by side.
  // A batch waits for the previous one's INSERT before its own queries; the writer keeps the batches' history behind them.
  let writing: Promise<void> = Promise.resolve();
  const flush = async () => {
    const pending = batch;
    batch = [];
    await writing;
    const unknown = await writer.unknownUsers(pending.map((p) => p.decoded));
    const refused = new Map<number, RowError[]>();
    for (const u of unknown) {
      const row = pending[u.index].row;
      refused.set(row, [...(refused.get(row) ?? []), { row, column: headerOf.get(u.pointer) ?? null, detail: u.detail }]);
    }
    for (const found of refused.values()) fail(found);
    if (!run.write || out.invalid > 0) return;
    writing = writer.write(pending.map((p) => p.decoded)).then((ids) => void (out.created += ids.length));
    // Awaited by the next flush or at the end; marked handled now so a failure does not count as unhandled meanwhile.
    writing.catch(() => undefined);
  };
  try {
    for await (const chunk of records) {
      for (const record of chunk) {
        const row = ++out.rows;
        const found: RowError[] = [];
        if (record.length !== width) found.push({ row, column: null, detail: `The row has ${record.length} cells; the header row has ${width}.` });
        if (out.detectors) for (let i = 0; i < width; i++) out.detectors[i].see(record[i] ?? '');
        const values: Record<string, unknown> = {};
        for (const target of plan.targets) {
          const cell = cellValue(target, record[target.index] ?? '');
          if ('error' in cell) found.push({ row, column: target.header, detail: cell.error });
          else if (target.create && !run.write) {
            const problem = checkNewCell(target, cell.value);
            if (problem) found.push({ row, column: target.header, detail: problem });
          } else values[target.field.api_name] = cell.value;
        }
        const problems: ErrorDetail[] = [];
        const decoded = writer.decode(values, problems);
        for (const p of problems) found.push({ row, column: headerOf.get(p.pointer) ?? null, detail: p.detail });
        if (found.length > 0) fail(found);
        else batch.push({ row, decoded });
        if (batch.length >= run.batchRows) await flush();
        if (row % run.batchRows === 0) await run.progress?.(row);
      }
    }
    if (batch.length > 0) await flush();
    await writing;
    await writer.finish();
  } catch (err) {
    // The caller rolls the transaction back: the writes under way end first, so that none reaches it afterwards.
    await writing.catch(() => undefined);
    await writer.finish().catch(() => undefined);
    throw err;
  }
  return out;
}
