import { DATETIME_OPS } from './ops.ts';
import { systemFieldType } from './system.ts';
import { DateTimeOptionsSchema, formatInstant, formatInstantSql, instantOut, normalizeTimeZone, timeZoneOf, type DateTimeOptions } from './time.ts';

/** When the record was last changed, read as ISO 8601 UTC; `time_zone` as for datetime. */
export const updatedAtType = systemFieldType<DateTimeOptions>({
  type: 'updated_at',
  cell: { schema: { type: 'string', format: 'date-time' }, example: '2026-11-24T09:30:00.123Z', writes: 'Read-only.' },
  options: DateTimeOptionsSchema,
  normalizeOptions: (options) => ({ ...options, time_zone: normalizeTimeZone(options.time_zone) }),
  systemColumn: 'updated_at',
  toApi: instantOut,
  ops: DATETIME_OPS,
  format: (value, field) => formatInstant(String(value), timeZoneOf(field.options)),
  formatSql: (col, field) => formatInstantSql(col, timeZoneOf(field.options)),
});
