import type { Db } from '../../core/db.ts';
import { AppError, validationFailed } from '../../core/errors.ts';
import { RecordErrors } from './errors.ts';
import type { CellContext, CellProblem } from '../databases/public.ts';
import type { DecodedCell } from './codec.ts';
import type { LiveField } from './live-fields.ts';

/** The cells of records stored outside their table (links), grouped by field. */
function byField(writes: Array<{ recordId: string; cells: DecodedCell[] }>): Map<LiveField, Array<{ recordId: string; value: unknown; pointer: string }>> {
  const groups = new Map<LiveField, Array<{ recordId: string; value: unknown; pointer: string }>>();
  for (const { recordId, cells } of writes) {
    for (const cell of cells) {
      const group = groups.get(cell.field) ?? [];
      group.push({ recordId, value: cell.value, pointer: cell.pointer });
      groups.set(cell.field, group);
    }
  }
  return groups;
}

/** Every problem of every outside cell, by the stores of their types. */
export async function checkOutsideCells(trx: Db, writes: Array<{ recordId: string; cells: DecodedCell[] }>, ctx: CellContext): Promise<CellProblem[]> {
  const problems: CellProblem[] = [];
  for (const [field, cells] of byField(writes)) problems.push(...(await field.fieldType.store!.check(trx, field, cells, ctx)));
  return problems;
}

export async function writeOutsideCells(trx: Db, writes: Array<{ recordId: string; cells: DecodedCell[] }>, ctx: CellContext): Promise<void> {
  for (const [field, cells] of byField(writes)) await field.fieldType.store!.write(trx, field, cells, ctx);
}

/** What a request that stops at its first bad record answers: 409 when a cell clashes with other records, else 422 with every pointer. */
export function refusal(problems: CellProblem[]): AppError {
  const clash = problems.find((p) => p.conflict);
  return clash ? RecordErrors.link_conflict(clash.detail, clash.extensions) : validationFailed(problems.map(({ pointer, detail }) => ({ pointer, detail })));
}

/** Checks then writes the outside cells of a write that is all or nothing. */
export async function storeOutsideCells(trx: Db, writes: Array<{ recordId: string; cells: DecodedCell[] }>, ctx: CellContext): Promise<void> {
  if (!writes.some((w) => w.cells.length > 0)) return;
  const problems = await checkOutsideCells(trx, writes, ctx);
  if (problems.length > 0) throw refusal(problems);
  await writeOutsideCells(trx, writes, ctx);
}
