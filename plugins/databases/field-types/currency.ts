import { Type } from '../../../core/schema.ts';
import { defineFieldType, type FieldMeta } from './field-type.ts';
import { InvalidCell } from '../errors.ts';
import { DEFAULT_PRECISION, fitNumericSql, fixedTextSql, formatFixed, numberTextSql, numericConversions, numericIn, numericMisfitSql, parseNumberText, requireNumber } from './numeric-base.ts';
import { NUMBER_OPS } from './ops.ts';
import { sqlString, sqlTrim, trimText } from './sql.ts';
import { toTextTargets, type TextCodec } from './text-codec.ts';

export interface CurrencyOptions {
  precision?: number;
  allow_negative?: boolean;
  symbol?: string;
  code?: string;
}

const symbolOf = (field: FieldMeta<CurrencyOptions>) => field.options.symbol ?? '$';
const codeOf = (field: FieldMeta<CurrencyOptions>) => field.options.code ?? 'USD';

/** CSV "-$1,234.50" / "1234.5 USD": the field's symbol and code are dropped, the rest is a number. */
export const currencyText: TextCodec = {
  parse(text, field: FieldMeta<CurrencyOptions>) {
    let s = trimText(text);
    if (s === '') return null;
    for (const mark of [symbolOf(field), codeOf(field)]) if (mark) s = s.split(mark).join('');
    const plain = parseNumberText(trimText(s));
    if (plain === null) throw new InvalidCell(`"${trimText(text)}" is not an amount.`);
    return Number(plain);
  },
  format(value, field: FieldMeta<CurrencyOptions>) {
    const fixed = formatFixed(value, field);
    return fixed.startsWith('-') ? `-${symbolOf(field)}${fixed.slice(1)}` : `${symbolOf(field)}${fixed}`;
  },
  parseSql(expr, field: FieldMeta<CurrencyOptions>) {
    let s = sqlTrim(expr);
    for (const mark of [symbolOf(field), codeOf(field)]) if (mark) s = `replace(${s}, ${sqlString(mark)}, '')`;
    return fitNumericSql(numberTextSql(sqlTrim(s)), field);
  },
  formatSql(col, field: FieldMeta<CurrencyOptions>) {
    const rounded = `round(${col}, ${field.options.precision ?? DEFAULT_PRECISION.currency})`;
    return `CASE WHEN ${rounded} < 0 THEN '-' ELSE '' END || ${sqlString(symbolOf(field))} || abs(${rounded})::text`;
  },
};

export const currencyType = defineFieldType<CurrencyOptions>({
  type: 'currency',
  cell: { schema: { type: ['number', 'null'] }, example: 1234.5, writes: "A JSON number at the field's precision; the symbol and code are display only." },
  options: Type.Object(
    {
      precision: Type.Integer({ minimum: 0, maximum: 10, default: DEFAULT_PRECISION.currency }),
      allow_negative: Type.Boolean({ default: true }),
      symbol: Type.String({ maxLength: 5, pattern: '^[^0-9.,+\\- \\t\\n\\r]*$', default: '$' }),
      code: Type.String({ pattern: '^[A-Z]{3}$', default: 'USD' }),
    },
    { additionalProperties: false },
  ),
  column: () => 'numeric',
  fromApi: (value, field) => numericIn(requireNumber(value), field),
  toApi: (value) => Number(value),
  ops: NUMBER_OPS,
  csv: {
    parse: currencyText.parse,
    format: currencyText.format,
    formatSql(col, field) {
      const fixed = fixedTextSql(col, field);
      const symbol = sqlString(symbolOf(field));
      return `CASE WHEN left(${fixed}, 1) = '-' THEN '-' || ${symbol} || substr(${fixed}, 2) ELSE ${symbol} || ${fixed} END`;
    },
  },
  misfitSql: numericMisfitSql,
  convertsTo: { ...numericConversions(), ...toTextTargets(currencyText.formatSql!) },
});
