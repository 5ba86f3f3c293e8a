import { cellOf, type RefField, type RefRecord, type RefWorld } from './model.ts';
import { isoOfUs } from './instants.ts';

/**
 * How the API shows a cell, reduced to what the reference decides: select options by id and
 * label (colours are the server's choice), people by id and name.
 */
export function expectedValue(world: RefWorld, field: RefField, record: RefRecord): unknown {
  const cell = cellOf(record, field);
  if (cell === null) return null;
  switch (field.type) {
    case 'datetime':
      return isoOfUs(cell as bigint);
    case 'single_select':
      return field.choices!.filter((c) => c.id === cell).map((c) => ({ id: c.id, label: c.label }))[0];
    case 'multi_select':
      return field.choices!.filter((c) => (cell as string[]).includes(c.id)).map((c) => ({ id: c.id, label: c.label }));
    case 'user':
      return { id: cell, name: world.userNames.get(cell as string) ?? null };
    default:
      return cell;
  }
}

/** An API value reduced the same way. */
export function shownValue(field: RefField, value: unknown): unknown {
  if (value === null) return null;
  const option = (o: { id: string; label: string }) => ({ id: o.id, label: o.label });
  if (field.type === 'single_select') return option(value as { id: string; label: string });
  if (field.type === 'multi_select') return (value as Array<{ id: string; label: string }>).map(option);
  return value;
}
