import { randomUUID } from 'node:crypto';
import { invalidField } from '../../../core/errors.ts';
import { Type } from '../../../core/schema.ts';
import { type FieldMeta } from './field-type.ts';
import { InvalidCell } from '../errors.ts';
import { sqlCase, sqlString, sqlTrim, trimText } from './sql.ts';

/** Options of single_select and multi_select: an ordered list of choices with stable ids. */
export const COLORS = ['blue', 'green', 'yellow', 'orange', 'red', 'pink', 'purple', 'teal', 'brown', 'gray'] as const;
export type Color = (typeof COLORS)[number];
export const MAX_CHOICES = 500;

export const ChoicesOptionsSchema = Type.Object(
  {
    choices: Type.Array(
      Type.Object(
        {
          id: Type.Optional(Type.String({ format: 'uuid' })),
          label: Type.String({ minLength: 1, maxLength: 100 }),
          color: Type.Optional(Type.Union(COLORS.map((c) => Type.Literal(c)))),
        },
        { additionalProperties: false },
      ),
      { maxItems: MAX_CHOICES, default: [] },
    ),
  },
  { additionalProperties: false },
);

export interface Choice {
  id: string;
  label: string;
  color: Color;
}
export interface ChoicesOptions {
  choices: Choice[];
}
type ChoiceInput = { id?: string; label: string; color?: Color };

/**
 * Trims labels and keeps them unique (ignoring case); keeps every id it is given (ids are stable
 * forever) and gives a choice without one the id of the previous choice with that label, else a
 * new uuid; fills a missing colour from the previous choice, else from the palette.
 */
export function normalizeChoices(options: { choices?: ChoiceInput[] }, previous?: { choices?: Choice[] }): ChoicesOptions {
  const input = options.choices ?? [];
  const before = previous?.choices ?? [];
  const givenIds = new Set(input.map((c) => c.id?.toLowerCase()).filter(Boolean));
  const ids = new Set<string>();
  const labels = new Set<string>();
  const choices = input.map((c, i): Choice => {
    const label = trimText(c.label);
    if (label === '' || label.includes('\u0000')) throw invalidField(`/options/choices/${i}/label`, 'A label must have visible characters.');
    if (labels.has(label.toLowerCase())) throw invalidField(`/options/choices/${i}/label`, `The label "${label}" is used twice.`);
    labels.add(label.toLowerCase());
    const reused = before.find((p) => p.label.toLowerCase() === label.toLowerCase() && !givenIds.has(p.id));
    const id = c.id?.toLowerCase() ?? reused?.id ?? randomUUID();
    if (ids.has(id)) throw invalidField(`/options/choices/${i}/id`, 'Two choices have the same id.');
    ids.add(id);
    const color = c.color ?? before.find((p) => p.id === id)?.color ?? COLORS[i % COLORS.length];
    return { id, label, color };
  });
  return { choices };
}

export function choicesOf(field: FieldMeta<any>): Choice[] {
  return (field.options as Partial<ChoicesOptions> | undefined)?.choices ?? [];
}

/** An option id or exact label → the option id. */
export function resolveChoice(value: unknown, field: FieldMeta<any>): string {
  if (typeof value !== 'string') throw new InvalidCell('Must be an option id or label (a string).');
  const choices = choicesOf(field);
  const byId = choices.find((c) => c.id === value.toLowerCase());
  if (byId) return byId.id;
  const byLabel = choices.find((c) => c.label === value);
  if (byLabel) return byLabel.id;
  throw new InvalidCell(`"${value}" is not an option of this field.`);
}

export function choiceOut(choice: Choice) {
  return { id: choice.id, label: choice.label, color: choice.color };
}

/** Splits a CSV cell of several labels: commas separate them (so a label with a comma cannot be imported by label). */
export function splitLabels(text: string): string[] {
  return text.split(',').map(trimText).filter((t) => t !== '');
}

/** The choice of `to` that a choice of another select field becomes: same id, else same label. */
export function counterpart(choice: Choice, to: FieldMeta<any>): Choice | undefined {
  const targets = choicesOf(to);
  return targets.find((t) => t.id === choice.id) ?? targets.find((t) => t.label === choice.label);
}

// ---- SQL ----

const uuid = (id: string) => `${sqlString(id)}::uuid`;

export function idArraySql(choices: Choice[]): string {
  return `ARRAY[${choices.map((c) => sqlString(c.id)).join(', ')}]::uuid[]`;
}

/** Single select id → label. */
export function labelSql(col: string, from: FieldMeta<any>): string {
  return sqlCase(choicesOf(from).map((c) => [`${col} = ${uuid(c.id)}`, sqlString(c.label)]), 'text');
}

/** Multi select ids → labels in choice order, joined with ", "; NULL when none is known. */
export function labelsSql(col: string, from: FieldMeta<any>): string {
  const choices = choicesOf(from);
  if (choices.length === 0) return 'NULL::text';
  const parts = choices.map((c) => `CASE WHEN ${uuid(c.id)} = ANY(${col}) THEN ${sqlString(c.label)} END`);
  return `NULLIF(array_to_string(ARRAY[${parts.join(', ')}]::text[], ', '), '')`;
}

/** Text → single select id: the trimmed text is a label or an id of `to`. */
export function choiceFromTextSql(expr: string, to: FieldMeta<any>): string {
  const s = sqlTrim(expr);
  return sqlCase(choicesOf(to).map((c) => [`${s} = ${sqlString(c.label)} OR lower(${s}) = ${sqlString(c.id)}`, uuid(c.id)]), 'uuid');
}

/** Text → multi select ids: the comma-separated labels or ids of `to` found in it, in choice order; others are dropped. */
export function choicesFromTextSql(expr: string, to: FieldMeta<any>): string {
  const choices = choicesOf(to);
  if (choices.length === 0) return 'NULL::uuid[]';
  const joined = `regexp_replace(${sqlTrim(expr)}, '[ \\t\\n\\r]*,[ \\t\\n\\r]*', ',', 'g')`;
  const tokens = `string_to_array(${joined}, ',')`;
  const lowerTokens = `string_to_array(lower(${joined}), ',')`;
  const parts = choices.map((c) => `CASE WHEN ${sqlString(c.label)} = ANY(${tokens}) OR ${sqlString(c.id)} = ANY(${lowerTokens}) THEN ${uuid(c.id)} END`);
  return nonEmptyIdsSql(`ARRAY[${parts.join(', ')}]::uuid[]`);
}

/** Drops NULLs from a uuid[]; an empty array becomes NULL (an empty cell). */
export function nonEmptyIdsSql(array: string): string {
  return `NULLIF(array_remove(${array}, NULL), '{}'::uuid[])`;
}
