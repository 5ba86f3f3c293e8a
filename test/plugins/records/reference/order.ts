import { cellOf, fieldOf, linkedRecords, type Cell, type RefField, type RefRecord, type RefWorld } from './model.ts';
import { rollupOf } from './rollups.ts';

export interface SortSpec {
  field: string;
  direction?: 'asc' | 'desc';
}

type KeyValue = string | number | bigint | null;

/** Where a record stands in an order: its sort key values, then its id (the final tie-break). */
export interface Place {
  keys: KeyValue[];
  id: string;
}

/** No sorts: manual order, by position compared as bytes (ASCII: as code units). */
export function placeOf(world: RefWorld, sorts: SortSpec[] | undefined, record: RefRecord): Place {
  if (!sorts || sorts.length === 0) return { keys: [record.position], id: record.id };
  return { keys: sorts.map((s) => sortValue(world, s.field, record)), id: record.id };
}

export function directionsOf(sorts: SortSpec[] | undefined): Array<'asc' | 'desc'> {
  return !sorts || sorts.length === 0 ? ['asc'] : sorts.map((s) => s.direction ?? 'asc');
}

/**
 * Text and people by their lower-cased text compared by code points; options by their index in
 * the field's choices (several: the smallest); a checkbox false before true; the rest naturally.
 */
function sortValue(world: RefWorld, apiName: string, record: RefRecord): KeyValue {
  const field = fieldOf(world, apiName);
  if (field.type === 'link' || field.type === 'lookup' || field.type === 'rollup') return linkedSortValue(world, field, record);
  return keyOf(world, field, cellOf(world, record, field));
}

function keyOf(world: RefWorld, field: RefField, cell: Cell): KeyValue {
  if (cell === null) return null;
  const index = (id: string) => field.choices!.findIndex((c) => c.id === id);
  switch (field.type) {
    case 'text':
      return (cell as string).toLowerCase();
    case 'checkbox':
      return cell ? 1 : 0;
    case 'single_select':
      return index(cell as string);
    case 'multi_select':
      return Math.min(...(cell as string[]).map(index));
    case 'user': {
      const name = world.userNames.get(cell as string);
      return name === undefined ? null : name.toLowerCase();
    }
    default:
      return cell as KeyValue;
  }
}

/**
 * As the relations README says: a link by its first linked record's title (empty or not); a
 * lookup by its first non-empty value's key, in link order; a rollup by its value — `unique`,
 * `min` and `earliest` by the least key, `max` and `latest` by the greatest, the others by what
 * they compute (concat lower-cased).
 */
function linkedSortValue(world: RefWorld, field: RefField, record: RefRecord): KeyValue {
  const records = linkedRecords(world, record, field.type === 'link' ? field.api_name : field.via!);
  if (field.type === 'link') {
    const title = records[0]?.cells.name;
    return title === undefined || title === null ? null : (title as string).toLowerCase();
  }
  const linked = world.linked!;
  const target = fieldOf(linked, field.target!);
  const cells = records.map((r) => cellOf(linked, r, target)).filter((c): c is string | number => c !== null);
  const keys = cells.map((c) => keyOf(linked, target, c)).filter((k): k is string | number | bigint => k !== null);
  const least = () => (keys.length === 0 ? null : keys.reduce((a, b) => (b < a ? b : a)));
  const greatest = () => (keys.length === 0 ? null : keys.reduce((a, b) => (b > a ? b : a)));
  if (field.type === 'lookup') return keys[0] ?? null;
  switch (field.fn) {
    case 'unique': case 'min': case 'earliest': return least();
    case 'max': case 'latest': return greatest();
    case 'concat': {
      const text = rollupOf('concat', target, cells);
      return text === null ? null : (text as string).toLowerCase();
    }
    default: return rollupOf(field.fn!, target, cells);
  }
}

function compare<T extends string | number | bigint>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Each key in its direction with empty keys last in both directions, then ids ascending. */
export function comparePlaces(a: Place, b: Place, directions: Array<'asc' | 'desc'>): number {
  for (let i = 0; i < directions.length; i++) {
    const [x, y] = [a.keys[i], b.keys[i]];
    if (x === y) continue;
    if (x === null) return 1;
    if (y === null) return -1;
    const c = compare(x, y);
    if (c !== 0) return directions[i] === 'asc' ? c : -c;
  }
  return compare(a.id, b.id);
}
