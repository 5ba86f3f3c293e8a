import { defineFieldType } from './field-type.ts';
import { InvalidCell } from '../errors.ts';
import {
  choiceOut, choicesFromTextSql, choicesOf, ChoicesOptionsSchema, counterpart, idArraySql, labelsSql, normalizeChoices, resolveChoice, splitLabels,
  type ChoicesOptions,
} from './choices.ts';
import { MULTI_SELECT_OPS } from './ops.ts';
import { sqlCase, sqlString } from './sql.ts';
import { toTextTargets, type TextCodec } from './text-codec.ts';

/** CSV: labels separated by commas. */
export const multiSelectText: TextCodec = {
  parse: (text) => {
    const labels = splitLabels(text);
    return labels.length ? labels : null;
  },
  format: (value) => (value as Array<{ label: string }>).map((c) => c.label).join(', '),
  parseSql: choicesFromTextSql,
  formatSql: labelsSql,
};

/**
 * Option ids stored as uuid[] in the order of the choices, without duplicates; an empty list is an
 * empty cell. Cells read as `[{ id, label, color }]` in the order of the choices.
 */
export const multiSelectType = defineFieldType<ChoicesOptions>({
  type: 'multi_select',
  cell: { schema: { type: ['array', 'null'], items: { type: 'object', properties: { id: { type: 'string', format: 'uuid' }, label: { type: 'string' }, color: { type: 'string' } } } }, example: [{ id: '0190c7a2-5b7e-7000-8000-0000000000c1', label: 'Urgent', color: 'red' }], writes: 'An array of option ids or exact labels; kept in the order of the choices.' },
  options: ChoicesOptionsSchema,
  normalizeOptions: normalizeChoices,
  column: () => 'uuid[]',
  fromApi(value, field) {
    if (!Array.isArray(value)) throw new InvalidCell('Must be an array of option ids or labels.');
    const ids = new Set(value.map((v) => resolveChoice(v, field)));
    const ordered = choicesOf(field).filter((c) => ids.has(c.id)).map((c) => c.id);
    return ordered.length ? ordered : null;
  },
  toApi(value, field) {
    const ids = new Set(value as string[]);
    const chosen = choicesOf(field).filter((c) => ids.has(c.id)).map(choiceOut);
    return chosen.length ? chosen : null;
  },
  ops: MULTI_SELECT_OPS,
  /** By the first chosen option in the order of the choices. */
  sortExpr: (col, field) => `(SELECT min(array_position(${idArraySql(choicesOf(field))}, x)) FROM unnest(${col}) AS x)`,
  sortType: 'integer',
  csv: { parse: multiSelectText.parse, format: multiSelectText.format },
  convertsTo: {
    ...toTextTargets(labelsSql),
    /** Keeps the first chosen option (in choice order) that the single select has. */
    single_select: {
      sql: (col, from, to) =>
        sqlCase(
          choicesOf(from).flatMap((c) => {
            const target = counterpart(c, to);
            return target ? [[`${sqlString(c.id)}::uuid = ANY(${col})`, `${sqlString(target.id)}::uuid`] as [string, string]] : [];
          }),
          'uuid',
        ),
    },
  },
});
