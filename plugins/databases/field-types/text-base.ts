import { Type } from '../../../core/schema.ts';
import { defineFieldType, type CellDoc, type Conversion, type FieldType } from './field-type.ts';
import { checkboxText } from './checkbox.ts';
import { currencyText } from './currency.ts';
import { dateText } from './date.ts';
import { datetimeText } from './datetime.ts';
import { durationText } from './duration.ts';
import { jsonText } from './json.ts';
import { multiSelectText } from './multi-select.ts';
import { numberText } from './number.ts';
import { TEXT_OPS } from './ops.ts';
import { percentText } from './percent.ts';
import { ratingText } from './rating.ts';
import { singleSelectText } from './single-select.ts';
import { TEXT_RULES, checkText, textSql } from './text-rules.ts';
import type { TextCodec } from './text-codec.ts';

/** The types a text column converts to by parsing each cell, as CSV import would. */
const PARSED_FROM_TEXT: Record<string, TextCodec> = {
  number: numberText,
  currency: currencyText,
  percent: percentText,
  rating: ratingText,
  duration: durationText,
  checkbox: checkboxText,
  date: dateText,
  datetime: datetimeText,
  single_select: singleSelectText,
  multi_select: multiSelectText,
  json: jsonText,
};

type TextTypeName = keyof typeof TEXT_RULES;

/** Every text-like type converts to every other one and to every type that parses text. */
function conversionsFrom(self: TextTypeName): Record<string, Conversion> {
  const out: Record<string, Conversion> = {};
  for (const [type, rule] of Object.entries(TEXT_RULES)) {
    if (type !== self) out[type] = { sql: (col) => textSql(rule, col) };
  }
  for (const [type, codec] of Object.entries(PARSED_FROM_TEXT)) out[type] = { sql: (col, _from, to) => codec.parseSql!(col, to) };
  return out;
}

/**
 * text, long_text, email, url, phone: a `text` column; an empty string is an empty cell (NULL);
 * sorted case-insensitively.
 */
/** Text cells in the API reference: a string, '' or null clearing it. */
const TEXT_CELLS: Record<TextTypeName, CellDoc> = {
  text: { schema: { type: ['string', 'null'] }, example: 'Acme renewal' },
  long_text: { schema: { type: ['string', 'null'] }, example: 'First line\nSecond line' },
  email: { schema: { type: ['string', 'null'], format: 'email' }, example: 'ada@example.com' },
  url: { schema: { type: ['string', 'null'], format: 'uri' }, example: 'https://example.com/deals/42' },
  phone: { schema: { type: ['string', 'null'] }, example: '+44 20 7946 0958' },
};

export function textFieldType(type: TextTypeName): FieldType<Record<string, never>> {
  const rule = TEXT_RULES[type];
  return defineFieldType<Record<string, never>>({
    type,
    cell: TEXT_CELLS[type],
    options: Type.Object({}, { additionalProperties: false }),
    column: () => 'text',
    fromApi: (value) => checkText(rule, value),
    toApi: (value) => String(value),
    ops: TEXT_OPS,
    sortExpr: (col) => `lower(${col}) COLLATE "C"`,
    sortType: 'text',
    sortIndexable: true,
    canBeTitle: true,
    csv: { parse: (text) => (text === '' ? null : text), format: (value) => String(value), formatSql: (col) => col },
    convertsTo: conversionsFrom(type),
  });
}
