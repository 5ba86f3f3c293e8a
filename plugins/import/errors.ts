import { escapePointer } from '../../core/schema.ts';
import { validationFailed, type AppError, type ErrorDetail } from '../../core/errors.ts';
import type { RowError } from './schemas.ts';

/*
 * The import plugin answers with the kernel's codes only: `validation_failed` (a bad mapping, a bad row),
 * `unsupported_media_type` (not UTF-8 text), `payload_too_large` (over `maxBytes`).
 */

/** A row error as the problem's `errors` carry it: the contract's `row`, `column`, `detail`, and a pointer like every other error. */
export function rowProblem(e: RowError): ErrorDetail & RowError {
  const at = e.row === null ? '/file' : `/rows/${e.row}`;
  return { pointer: e.column === null ? at : `${at}/${escapePointer(e.column)}`, ...e };
}

/** A real import refused: nothing was stored. */
export function rowsInvalid(errors: RowError[], invalidRows: number): AppError {
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  return validationFailed(
    errors.map(rowProblem),
    `${plural(invalidRows, 'row')} of the file cannot be imported; nothing was stored. \`errors\` lists the first ${plural(errors.length, 'problem')} (\`row\` is the 1-based data row, the header row not counted).`,
  );
}
