import { Type } from '../../../core/schema.ts';
import { defineFieldType, type FieldMeta } from './field-type.ts';
import { InvalidCell } from '../errors.ts';
import { roundDecimal, shiftDecimal, toPlainDecimal } from './decimal.ts';
import { DEFAULT_PRECISION, fitNumericSql, numberTextSql, numericConversions, numericIn, numericMisfitSql, parseNumberText, requireNumber } from './numeric-base.ts';
import { NUMBER_OPS } from './ops.ts';
import { sqlTrim, trimText } from './sql.ts';
import { toTextTargets, type TextCodec } from './text-codec.ts';

/** `precision` counts the decimals of the percentage shown (12.5% has 1), not of the stored fraction. */
export interface PercentOptions {
  precision?: number;
  allow_negative?: boolean;
}

const precisionOf = (field: FieldMeta<PercentOptions>) => field.options.precision ?? DEFAULT_PRECISION.percent;

/** The API carries the fraction (0.125); CSV and text carry the percentage ("12.5%", "%" optional). */
export const percentText: TextCodec = {
  parse(text) {
    const s = trimText(text);
    if (s === '') return null;
    const plain = parseNumberText(trimText(s.replace(/%$/, '')));
    if (plain === null) throw new InvalidCell(`"${s}" is not a percentage.`);
    return Number(shiftDecimal(plain, -2));
  },
  format: (value, field: FieldMeta<PercentOptions>) => `${roundDecimal(shiftDecimal(toPlainDecimal(Number(value)), 2), precisionOf(field))}%`,
  parseSql: (expr, field) => fitNumericSql(`(${numberTextSql(sqlTrim(`regexp_replace(${sqlTrim(expr)}, '%$', '')`))}) / 100`, field),
  formatSql: (col, field: FieldMeta<PercentOptions>) => `round(${col} * 100, ${precisionOf(field)})::text || '%'`,
};

export const percentType = defineFieldType<PercentOptions>({
  type: 'percent',
  cell: { schema: { type: ['number', 'null'], description: 'A fraction: 0.125 is 12.5 %.' }, example: 0.125 },
  options: Type.Object(
    {
      precision: Type.Integer({ minimum: 0, maximum: 8, default: DEFAULT_PRECISION.percent }),
      allow_negative: Type.Boolean({ default: true }),
    },
    { additionalProperties: false },
  ),
  column: () => 'numeric',
  fromApi: (value, field) => numericIn(requireNumber(value), field),
  toApi: (value) => Number(value),
  ops: NUMBER_OPS,
  csv: { parse: percentText.parse, format: percentText.format },
  misfitSql: numericMisfitSql,
  convertsTo: { ...numericConversions(), ...toTextTargets(percentText.formatSql!) },
});
