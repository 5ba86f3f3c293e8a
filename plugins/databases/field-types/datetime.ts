import { defineFieldType, type FieldMeta } from './field-type.ts';
import { DATETIME_OPS } from './ops.ts';
import { toTextTargets, type TextCodec } from './text-codec.ts';
import {
  DateTimeOptionsSchema, formatInstant, formatInstantSql, instantFromTextSql, instantIn, instantOut, instantToDateSql, normalizeTimeZone,
  parseInstantText, timeZoneOf, type DateTimeOptions,
} from './time.ts';

/** An instant, stored as timestamptz and read as ISO 8601 UTC; `time_zone` is the zone people see it in. */
export const datetimeText: TextCodec = {
  parse: (text, field: FieldMeta<DateTimeOptions>) => parseInstantText(text, timeZoneOf(field.options)),
  format: (value, field: FieldMeta<DateTimeOptions>) => formatInstant(String(value), timeZoneOf(field.options)),
  parseSql: (expr, field: FieldMeta<DateTimeOptions>) => instantFromTextSql(expr, timeZoneOf(field.options)),
  formatSql: (col, field: FieldMeta<DateTimeOptions>) => formatInstantSql(col, timeZoneOf(field.options)),
};

export const datetimeType = defineFieldType<DateTimeOptions>({
  type: 'datetime',
  cell: { schema: { type: ['string', 'null'], format: 'date-time' }, example: '2026-11-24T09:30:00Z', writes: "An ISO 8601 instant; without an offset, a wall time in the field's time_zone." },
  options: DateTimeOptionsSchema,
  normalizeOptions: (options) => ({ ...options, time_zone: normalizeTimeZone(options.time_zone) }),
  column: () => 'timestamptz',
  fromApi: (value, field) => instantIn(value, timeZoneOf(field.options)),
  toApi: instantOut,
  ops: DATETIME_OPS,
  canBeTitle: true,
  csv: { parse: datetimeText.parse, format: datetimeText.format, formatSql: datetimeText.formatSql },
  convertsTo: {
    ...toTextTargets(datetimeText.formatSql!),
    date: { sql: (col, from) => instantToDateSql(col, timeZoneOf(from.options as DateTimeOptions)) },
  },
});
