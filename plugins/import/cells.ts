import { InvalidCell } from '../databases/public.ts';
import type { Target } from './mapping.ts';

/**
 * The most significant digits a number read from text may have: every decimal of up to 15 significant digits
 * survives the trip through a JS number (IEEE double) digit for digit, longer ones may not. Numeric types parse
 * CSV cells into numbers, so a longer one is refused rather than silently changed.
 */
const EXACT_DIGITS = 15;

/** The digits of `text` (other characters skipped) from its first non-zero one to its last non-zero one after the point. */
function significantDigits(text: string): number {
  // One pass over the characters: this runs for every numeric cell of an import.
  let digits = 0;
  let leading = true;
  let fraction = false;
  let trailingZeros = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === DOT) {
      if (fraction) break;
      fraction = true;
    } else if (c >= ZERO && c <= ZERO + 9) {
      if (leading && c === ZERO) continue;
      leading = false;
      digits++;
      trailingZeros = fraction && c === ZERO ? trailingZeros + 1 : 0;
    }
  }
  return digits - trailingZeros;
}

const ZERO = 0x30;
const DOT = 0x2e;

/**
 * A CSV cell → the API value its field takes (the type's `csv.parse`, `""` is empty), or why it cannot be one.
 * The value then goes through the same checks as an API write (`fromApi`, by the records plugin).
 */
export function cellValue(target: Target, text: string): { value: unknown } | { error: string } {
  let value: unknown;
  try {
    value = target.fieldType.csv.parse(text, target.field);
  } catch (err) {
    if (err instanceof InvalidCell) return { error: err.detail };
    throw err;
  }
  if (typeof value === 'number' && significantDigits(text) > EXACT_DIGITS) {
    return { error: `"${text.trim()}" has more than ${EXACT_DIGITS} significant digits: a ${target.field.type} field cannot keep it exactly (import it into a text field to keep every digit).` };
  }
  return { value };
}

/** For a dry run's new fields (no field yet for the records plugin to check against): the API write's own check. */
export function checkNewCell(target: Target, value: unknown): string | undefined {
  if (value === null) return undefined;
  try {
    target.fieldType.fromApi(value, target.field);
    return undefined;
  } catch (err) {
    if (err instanceof InvalidCell) return err.detail;
    throw err;
  }
}
