import { cellOf, fieldOf, linkedRecords, type Cell, type RefField, type RefRecord, type RefWorld } from './model.ts';
import { isoOfUs } from './instants.ts';
import { rollupOf } from './rollups.ts';

/**
 * How the API shows a cell, reduced to what the reference decides: select options by id and
 * label (colours are the server's choice), people by id and name, a rollup's distinct values in
 * no particular order (the API promises none).
 */
export function expectedValue(world: RefWorld, field: RefField, record: RefRecord): unknown {
  switch (field.type) {
    case 'link':
      return linkedRecords(world, record, field.api_name).map((r) => ({ id: r.id, title: r.cells.name ?? null }));
    case 'lookup':
    case 'rollup': {
      const linked = world.linked!;
      const target = fieldOf(linked, field.target!);
      const cells = linkedRecords(world, record, field.via!)
        .map((r) => cellOf(linked, r, target))
        .filter((c): c is string | number => c !== null);
      if (field.type === 'lookup') return cells.map((c) => apiValueOf(linked, target, c));
      if (field.fn === 'unique') return unordered([...new Set(cells)].map((c) => apiValueOf(linked, target, c)));
      return rollupOf(field.fn!, target, cells);
    }
    default:
      return apiValueOf(world, field, cellOf(world, record, field));
  }
}

function apiValueOf(world: RefWorld, field: RefField, cell: Cell): unknown {
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

function unordered(values: unknown[]): unknown[] {
  return values.map((v) => [JSON.stringify(v), v] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
}

/** An API value reduced the same way. */
export function shownValue(world: RefWorld, field: RefField, value: unknown): unknown {
  if (value === null) return null;
  const option = (o: { id: string; label: string }) => ({ id: o.id, label: o.label });
  switch (field.type) {
    case 'single_select':
      return option(value as { id: string; label: string });
    case 'multi_select':
      return (value as Array<{ id: string; label: string }>).map(option);
    case 'lookup':
    case 'rollup': {
      const target = fieldOf(world.linked!, field.target!);
      if (field.type === 'lookup') return (value as unknown[]).map((v) => shownValue(world.linked!, target, v));
      // Other rollups read numbers, days or text, shown as they are.
      return field.fn === 'unique' ? unordered((value as unknown[]).map((v) => shownValue(world.linked!, target, v))) : value;
    }
    default:
      return value;
  }
}
