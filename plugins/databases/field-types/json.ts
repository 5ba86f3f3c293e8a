import { Type } from '../../../core/schema.ts';
import { defineFieldType } from './field-type.ts';
import { InvalidCell } from '../errors.ts';
import { PRESENCE_OPS } from './ops.ts';
import { toTextTargets, type TextCodec } from './text-codec.ts';

const MAX_JSON_CHARS = 100_000;

/** PostgreSQL's jsonb refuses \u0000 in strings; JSON has no NaN or Infinity. */
function check(value: unknown): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) throw new InvalidCell('JSON strings must not contain NUL characters.');
  } else if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new InvalidCell('JSON numbers must be finite.');
  } else if (Array.isArray(value)) {
    value.forEach(check);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      check(key);
      check(item);
    }
  } else if (value !== null && typeof value !== 'boolean') {
    throw new InvalidCell('Must be a JSON value.');
  }
}

/**
 * CSV and text show a JSON string as its bare text and anything else as JSON; CSV import reads
 * the cell as JSON when it parses, else as a string. Converting text to json keeps each text as a
 * JSON string (SQL cannot try-parse), so "12" becomes "12", not 12.
 */
export const jsonText: TextCodec = {
  parse(text) {
    if (text === '') return null;
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  },
  format: (value) => (typeof value === 'string' ? value : JSON.stringify(value)),
  parseSql: (expr) => `to_jsonb(${expr})`,
  formatSql: (col) => `CASE WHEN jsonb_typeof(${col}) = 'string' THEN ${col} #>> '{}' ELSE ${col}::text END`,
};

/** Any JSON value, stored as jsonb and read back as it was written (object keys may come back reordered). */
export const jsonType = defineFieldType<Record<string, never>>({
  type: 'json',
  cell: { schema: { description: 'Any JSON value but a top-level null.' }, example: { source: 'import', tags: ['a', 'b'] } },
  options: Type.Object({}, { additionalProperties: false }),
  column: () => 'jsonb',
  fromApi(value) {
    check(value);
    const text = JSON.stringify(value);
    if (text.length > MAX_JSON_CHARS) throw new InvalidCell(`Must be at most ${MAX_JSON_CHARS} characters as JSON.`);
    return text;
  },
  toApi: (value) => value,
  ops: PRESENCE_OPS,
  csv: { parse: jsonText.parse, format: jsonText.format },
  convertsTo: toTextTargets(jsonText.formatSql!),
});
