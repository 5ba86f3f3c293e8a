import { Type } from '../../../core/schema.ts';
import { defineFieldType } from './field-type.ts';
import { DEFAULT_RATING_MAX, numericCellSql, numericConversions, numericIn, numericMisfitSql, parseNumericCell, requireNumber } from './numeric-base.ts';
import { INTEGER_OPS } from './ops.ts';
import { toTextTargets, type TextCodec } from './text-codec.ts';

const RATING_ICONS = ['star', 'heart', 'thumb', 'flag', 'circle'] as const;

export interface RatingOptions {
  max?: number;
  icon?: (typeof RATING_ICONS)[number];
}

/** A number of stars, 1..max; 0 stars is an empty cell. */
export const ratingText: TextCodec = {
  parse: parseNumericCell,
  format: (value) => String(value),
  parseSql: numericCellSql,
  formatSql: (col) => `${col}::text`,
};

export const ratingType = defineFieldType<RatingOptions>({
  type: 'rating',
  cell: { schema: { type: ['integer', 'null'], minimum: 1 }, example: 4, writes: "A whole number from 0 (empty) to the field's max." },
  options: Type.Object(
    {
      max: Type.Integer({ minimum: 1, maximum: 10, default: DEFAULT_RATING_MAX }),
      icon: Type.Union(RATING_ICONS.map((i) => Type.Literal(i)), { default: 'star' }),
    },
    { additionalProperties: false },
  ),
  column: () => 'smallint',
  fromApi: (value, field) => numericIn(requireNumber(value), field),
  toApi: (value) => Number(value),
  ops: INTEGER_OPS,
  csv: { parse: ratingText.parse, format: ratingText.format, formatSql: ratingText.formatSql },
  misfitSql: numericMisfitSql,
  convertsTo: { ...numericConversions(), ...toTextTargets(ratingText.formatSql!) },
});
