import { Type } from '../../../core/schema.ts';
import { defineFieldType } from './field-type.ts';
import { InvalidCell } from '../errors.ts';
import { fitNumericSql } from './numeric-base.ts';
import { CHECKBOX_OPS } from './ops.ts';
import { sqlString, sqlTrim, trimText } from './sql.ts';
import { toTextTargets, type TextCodec } from './text-codec.ts';

/** Words a spreadsheet uses for a ticked box (compared case-insensitively). */
const CHECKED = ['true', 'yes', 'y', '1', 'checked', 'x', 'on', '✓', '✔'];
const UNCHECKED = ['false', 'no', 'n', '0', 'unchecked', 'off', ''];

/** Never empty: an unticked box is false, and so is a cell it cannot read when converting. */
export const checkboxText: TextCodec = {
  parse(text) {
    const s = trimText(text).toLowerCase();
    if (CHECKED.includes(s)) return true;
    if (UNCHECKED.includes(s)) return false;
    throw new InvalidCell(`"${trimText(text)}" is not a checkbox value (true/false, yes/no, 1/0).`);
  },
  format: (value) => (value === true ? 'true' : 'false'),
  parseSql: (expr) => `COALESCE(lower(${sqlTrim(expr)}) IN (${CHECKED.map(sqlString).join(', ')}), false)`,
  formatSql: (col) => `CASE WHEN ${col} THEN 'true' ELSE 'false' END`,
};

export const checkboxType = defineFieldType<Record<string, never>>({
  type: 'checkbox',
  cell: { schema: { type: 'boolean' }, example: true },
  emptyValue: false,
  options: Type.Object({}, { additionalProperties: false }),
  column: () => 'boolean',
  fromApi(value) {
    if (typeof value !== 'boolean') throw new InvalidCell('Must be true or false.');
    return value;
  },
  toApi: (value) => value === true,
  ops: CHECKBOX_OPS,
  /** Cells never written (records made before the field, or without it) are NULL and read as false. */
  sortExpr: (col) => `coalesce(${col}, false)`,
  sortType: 'boolean',
  sortIndexable: true,
  csv: { parse: checkboxText.parse, format: checkboxText.format, formatSql: checkboxText.formatSql },
  convertsTo: {
    ...toTextTargets(checkboxText.formatSql!),
    number: { sql: (col, _from, to) => fitNumericSql(`CASE WHEN ${col} THEN 1 ELSE 0 END`, to) },
  },
});
