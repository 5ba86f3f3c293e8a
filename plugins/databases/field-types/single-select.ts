import { defineFieldType, type FieldMeta } from './field-type.ts';
import {
  choiceFromTextSql, choiceOut, choicesOf, ChoicesOptionsSchema, counterpart, idArraySql, labelSql, normalizeChoices, resolveChoice,
  type ChoicesOptions,
} from './choices.ts';
import { SELECT_OPS } from './ops.ts';
import { sqlCase, sqlString, trimText } from './sql.ts';
import { toTextTargets, type TextCodec } from './text-codec.ts';

export const singleSelectText: TextCodec = {
  parse: (text) => trimText(text) || null,
  format: (value) => (value as { label: string }).label,
  parseSql: choiceFromTextSql,
  formatSql: labelSql,
};

/** The option id is stored; a cell reads `{ id, label, color }` and sorts in the order of the choices. */
export const singleSelectType = defineFieldType<ChoicesOptions>({
  type: 'single_select',
  cell: { schema: { oneOf: [{ type: 'null' }, { type: 'object', properties: { id: { type: 'string', format: 'uuid' }, label: { type: 'string' }, color: { type: 'string' } } }] }, example: { id: '0190c7a2-5b7e-7000-8000-0000000000c1', label: 'Open', color: 'blue' }, writes: "The option's id or its exact label." },
  options: ChoicesOptionsSchema,
  normalizeOptions: normalizeChoices,
  column: () => 'uuid',
  fromApi: resolveChoice,
  toApi(value, field) {
    const choice = choicesOf(field).find((c) => c.id === value);
    return choice ? choiceOut(choice) : null;
  },
  ops: SELECT_OPS,
  sortExpr: (col, field) => `array_position(${idArraySql(choicesOf(field))}, ${col})`,
  sortType: 'integer',
  csv: { parse: singleSelectText.parse, format: singleSelectText.format, formatSql: labelSql },
  convertsTo: {
    ...toTextTargets(labelSql),
    multi_select: {
      sql: (col, from, to: FieldMeta<any>) =>
        sqlCase(
          choicesOf(from).flatMap((c) => {
            const target = counterpart(c, to);
            return target ? [[`${col} = ${sqlString(c.id)}::uuid`, `ARRAY[${sqlString(target.id)}]::uuid[]`] as [string, string]] : [];
          }),
          'uuid[]',
        ),
    },
  },
});
