import { Type } from '../../../core/schema.ts';
import { defineFieldType } from './field-type.ts';
import { DATE_OPS } from './ops.ts';
import { toTextTargets, type TextCodec } from './text-codec.ts';
import { DATE_FORMATS, dateFromTextSql, dateIn, dateOut, dateToInstantSql, formatDateSql, parseDateText, timeZoneOf, type DateTimeOptions } from './time.ts';

/** A calendar day without a time or zone. `date_format` is for display by clients; the API is always ISO. */
export interface DateOptions {
  date_format?: (typeof DATE_FORMATS)[number];
}

export const dateText: TextCodec = {
  parse: (text) => parseDateText(text),
  format: (value) => String(value),
  parseSql: (expr) => dateFromTextSql(expr),
  formatSql: (col) => formatDateSql(col),
};

export const dateType = defineFieldType<DateOptions>({
  type: 'date',
  cell: { schema: { type: ['string', 'null'], format: 'date' }, example: '2026-11-24' },
  options: Type.Object({ date_format: Type.Union(DATE_FORMATS.map((f) => Type.Literal(f)), { default: 'iso' }) }, { additionalProperties: false }),
  column: () => 'date',
  fromApi: dateIn,
  toApi: dateOut,
  ops: DATE_OPS,
  canBeTitle: true,
  csv: { parse: dateText.parse, format: dateText.format, formatSql: dateText.formatSql },
  convertsTo: {
    ...toTextTargets(dateText.formatSql!),
    datetime: { sql: (col, _from, to) => dateToInstantSql(col, timeZoneOf(to.options as DateTimeOptions)) },
  },
});
