import type { Conversion, FieldMeta, FieldType } from './field-type.ts';
import { TEXT_RULES, textSql } from './text-rules.ts';

/**
 * How a type reads and writes text, in JS (CSV) and in SQL (conversions) side by side, so that
 * converting a text column to a type keeps what importing the same text as CSV would keep, and
 * converting a type to text writes what a CSV export would.
 */
export interface TextCodec {
  /** A CSV cell → an API value (null when empty). Throws InvalidCell when the text is not one. */
  parse(text: string, field: FieldMeta<any>): unknown;
  /** An API value → a CSV cell. */
  format(value: unknown, field: FieldMeta<any>): string;
  /** SQL twin of parse + fromApi: a text expression → the column value, NULL when it is not one. */
  parseSql?(text: string, field: FieldMeta<any>): string;
  /** SQL twin of toApi + format: the column → its text. */
  formatSql?(col: string, field: FieldMeta<any>): string;
}

/** Conversions to `text` and `long_text` for a type that can write itself as text; too long → NULL. */
export function toTextTargets(formatSql: (col: string, field: FieldMeta<any>) => string): Record<string, Conversion> {
  return {
    text: { sql: (col, from) => textSql(TEXT_RULES.text, formatSql(col, from)) },
    long_text: { sql: (col, from) => textSql(TEXT_RULES.long_text, formatSql(col, from)) },
  };
}

const TEXT_FIELD: FieldMeta = { id: '', api_name: '', type: 'text', options: {} };

/**
 * SQL of a column's value as text, as converting it to a text field would write it (a select's
 * label, a number's digits, a day as `YYYY-MM-DD`); undefined for types with no text form.
 */
export function textFormSql(type: FieldType, field: FieldMeta<any>, col: string): string | undefined {
  return type.column?.(field.options) === 'text' ? col : type.convertsTo.text?.sql(col, field, TEXT_FIELD);
}
