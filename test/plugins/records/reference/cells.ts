import { instantUs } from './instants.ts';
import type { Cell, RefChoice, RefField } from './model.ts';

/** An option id (any case) or an exact label → the option id. */
export function choiceId(field: RefField, value: string): string {
  const choices: RefChoice[] = field.choices ?? [];
  const choice = choices.find((c) => c.id === value.toLowerCase()) ?? choices.find((c) => c.label === value);
  if (!choice) throw new Error(`reference: ${value} is no option of ${field.api_name}`);
  return choice.id;
}

/** What a cell holds after a write of `value` (null or an empty value empties it; a checkbox is then false). */
export function storedCell(field: RefField, value: unknown): Cell {
  if (value === null) return field.type === 'checkbox' ? false : null;
  switch (field.type) {
    case 'text':
      return value === '' ? null : (value as string);
    case 'number':
      // Stored as sent (+ 0: the API never says -0).
      return (value as number) + 0;
    case 'checkbox':
      return value as boolean;
    case 'date':
      return value as string;
    case 'datetime':
      return instantUs(value as string, field.zone ?? 'UTC');
    case 'single_select':
      return choiceId(field, value as string);
    case 'multi_select': {
      const ids = new Set((value as string[]).map((v) => choiceId(field, v)));
      const ordered = (field.choices ?? []).filter((c) => ids.has(c.id)).map((c) => c.id);
      return ordered.length > 0 ? ordered : null;
    }
    case 'user':
      return (value as string).toLowerCase();
    default:
      throw new Error(`reference: ${field.type} cells are not written`);
  }
}
