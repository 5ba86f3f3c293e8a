import { Type } from 'tessera/schema';
import { defineFieldType, InvalidCell, TEXT_OPS } from 'tessera/field-types';

const HEX = /^#[0-9a-f]{6}$/i;

/** Only the operators that mean something for a colour: equality, lists and emptiness (the text ones, ignoring case). */
const { eq, neq, is_any_of, is_none_of, is_empty, is_not_empty } = TEXT_OPS;

/**
 * `color`: an sRGB colour as `#rrggbb`. Any case is accepted and the same colour is stored and read in lowercase,
 * so that equal colours are equal cells; shorthand (`#f80`), names (`orange`) and alpha are refused rather than
 * guessed at. Empty: `null` or `""`.
 */
export const colorType = defineFieldType<Record<string, never>>({
  type: 'color',
  cell: { schema: { type: ['string', 'null'], pattern: '^#[0-9a-f]{6}$' }, example: '#3366ff', writes: '`#rrggbb` in any case; read back in lowercase' },
  options: Type.Object({}, { additionalProperties: false }),
  column: () => 'text',
  fromApi(value) {
    if (value === '') return null;
    if (typeof value !== 'string' || !HEX.test(value)) throw new InvalidCell('Must be a colour as #rrggbb (six hexadecimal digits), e.g. "#3366ff".');
    return value.toLowerCase();
  },
  toApi: (value) => String(value),
  ops: { eq, neq, is_any_of, is_none_of, is_empty, is_not_empty },
  sortIndexable: true,
  csv: { parse: (text) => text.trim(), format: (value) => String(value) },
  // Every stored value is already valid text.
  convertsTo: { text: { sql: (col) => col }, long_text: { sql: (col) => col } },
});
