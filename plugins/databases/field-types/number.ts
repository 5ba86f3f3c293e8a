import { Type } from '../../../core/schema.ts';
import { defineFieldType, type FieldMeta } from './field-type.ts';
import { DEFAULT_PRECISION, fixedTextSql, formatFixed, numericCellSql, numericConversions, numericIn, numericMisfitSql, parseNumericCell, requireNumber } from './numeric-base.ts';
import { NUMBER_OPS } from './ops.ts';
import { toTextTargets, type TextCodec } from './text-codec.ts';

export interface NumberOptions {
  precision?: number;
  allow_negative?: boolean;
}

export const numberText: TextCodec = {
  parse: parseNumericCell,
  format: formatFixed,
  parseSql: numericCellSql,
  formatSql: (col, field: FieldMeta<NumberOptions>) => `round(${col}, ${field.options.precision ?? DEFAULT_PRECISION.number})::text`,
};

export const numberType = defineFieldType<NumberOptions>({
  type: 'number',
  cell: { schema: { type: ['number', 'null'] }, example: 1234, writes: "A JSON number at the field's precision (finer → 422), within ±10^15." },
  options: Type.Object(
    {
      precision: Type.Integer({ minimum: 0, maximum: 10, default: DEFAULT_PRECISION.number }),
      allow_negative: Type.Boolean({ default: true }),
    },
    { additionalProperties: false },
  ),
  column: () => 'numeric',
  fromApi: (value, field) => numericIn(requireNumber(value), field),
  toApi: (value) => Number(value),
  ops: NUMBER_OPS,
  canBeTitle: true,
  csv: { parse: numberText.parse, format: numberText.format, formatSql: fixedTextSql },
  misfitSql: numericMisfitSql,
  convertsTo: {
    ...numericConversions(),
    ...toTextTargets(numberText.formatSql!),
    checkbox: { sql: (col) => `COALESCE(${col} <> 0, false)` },
  },
});
