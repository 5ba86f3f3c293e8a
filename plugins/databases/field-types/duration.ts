import { Type } from '../../../core/schema.ts';
import { defineFieldType, type FieldMeta } from './field-type.ts';
import { InvalidCell } from '../errors.ts';
import { toPlainDecimal } from './decimal.ts';
import {
  DURATION_FORMATS, durationDecimals, fitNumericSql, numberTextSql, numericConversions, numericIn, parseNumberText, roundValue, type DurationFormat,
} from './numeric-base.ts';
import { NUMBER_OPS } from './ops.ts';
import { sqlTrim, trimText } from './sql.ts';
import { toTextTargets, type TextCodec } from './text-codec.ts';

/** Stored and carried by the API as seconds; `format` is how it is written and how finely it is kept. */
export interface DurationOptions {
  format?: DurationFormat;
}

/** "1:30" is 1 h 30 min; "1:30:15.5" is 1 h 30 min 15.5 s; a leading "-" makes it negative. */
const CLOCK = '^(-{0,1})([0-9]+):([0-5][0-9])(:([0-5][0-9])(\\.[0-9]{1,3}){0,1}){0,1}$';
const CLOCK_RE = new RegExp(CLOCK);

function clockSeconds(text: string): string | null {
  const m = CLOCK_RE.exec(text);
  if (!m) return null;
  const whole = BigInt(m[2]) * 3600n + BigInt(m[3]) * 60n + BigInt(m[5] ?? 0);
  return `${m[1]}${whole}${m[6] ?? ''}`;
}

const formatOf = (field: FieldMeta<DurationOptions>) => field.options.format ?? 'h:mm';

function durationIn(value: unknown, field: FieldMeta<DurationOptions>) {
  if (typeof value === 'number' && Number.isFinite(value)) return numericIn(value, field);
  const seconds = typeof value === 'string' ? clockSeconds(value) : null;
  if (seconds === null) throw new InvalidCell('Must be a number of seconds, or a duration written "h:mm" or "h:mm:ss".');
  return numericIn(Number(seconds), field);
}

export const durationText: TextCodec = {
  parse(text) {
    const s = trimText(text);
    if (s === '') return null;
    const seconds = clockSeconds(s) ?? parseNumberText(s);
    if (seconds === null) throw new InvalidCell(`"${s}" is not a duration (h:mm, h:mm:ss or seconds).`);
    return Number(seconds);
  },
  format(value, field: FieldMeta<DurationOptions>) {
    const format = formatOf(field);
    const decimals = durationDecimals(format);
    const rounded = roundValue(toPlainDecimal(Number(value)), field);
    const unit = 10n ** BigInt(decimals);
    let units = BigInt(rounded.replace('.', ''));
    const sign = units < 0n ? '-' : '';
    if (units < 0n) units = -units;
    const hours = units / (3600n * unit);
    const minutes = (units % (3600n * unit)) / (60n * unit);
    let text = `${sign}${hours}:${String(minutes).padStart(2, '0')}`;
    if (format !== 'h:mm') {
      const rest = units % (60n * unit);
      const seconds = String(rest / unit).padStart(2, '0');
      text += decimals ? `:${seconds}.${String(rest % unit).padStart(decimals, '0')}` : `:${seconds}`;
    }
    return text;
  },
  parseSql(expr, field) {
    const s = sqlTrim(expr);
    const unsigned = `ltrim(${s}, '-')`;
    const clock = `(CASE WHEN left(${s}, 1) = '-' THEN -1 ELSE 1 END) * (split_part(${unsigned}, ':', 1)::numeric * 3600 + split_part(${unsigned}, ':', 2)::numeric * 60 + COALESCE(NULLIF(split_part(${unsigned}, ':', 3), ''), '0')::numeric)`;
    return fitNumericSql(`CASE WHEN ${s} ~ '${CLOCK}' THEN ${clock} ELSE ${numberTextSql(s)} END`, field);
  },
  formatSql(col, field: FieldMeta<DurationOptions>) {
    const format = formatOf(field);
    const decimals = durationDecimals(format);
    const rounded = format === 'h:mm' ? `(round(${col} / 60) * 60)` : `round(${col}, ${decimals})`;
    const a = `abs(${rounded})`;
    let text = `CASE WHEN ${rounded} < 0 THEN '-' ELSE '' END || floor(${a} / 3600)::text || ':' || lpad(floor(mod(${a}, 3600) / 60)::text, 2, '0')`;
    if (format !== 'h:mm') text += ` || ':' || lpad(round(mod(${a}, 60), ${decimals})::text, ${decimals ? decimals + 3 : 2}, '0')`;
    return text;
  },
};

export const durationType = defineFieldType<DurationOptions>({
  type: 'duration',
  cell: { schema: { type: ['number', 'null'], description: 'Seconds, to the millisecond.' }, example: 5400, writes: 'Seconds, or "h:mm", "h:mm:ss" or "h:mm:ss.fff" text (a leading "-" for negative).' },
  options: Type.Object(
    { format: Type.Union(DURATION_FORMATS.map((f) => Type.Literal(f)), { default: 'h:mm' }) },
    { additionalProperties: false },
  ),
  column: () => 'numeric',
  fromApi: durationIn,
  toApi: (value) => Number(value),
  ops: NUMBER_OPS,
  csv: { parse: durationText.parse, format: durationText.format },
  convertsTo: { ...numericConversions(), ...toTextTargets(durationText.formatSql!) },
});
