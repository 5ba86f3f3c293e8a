import { choiceId } from './cells.ts';
import { dayStartUs, instantUs, nextDay } from './instants.ts';
import { cellOf, fieldOf, linkedRecords, type Cell, type RefField, type RefRecord, type RefWorld } from './model.ts';
import { rollupOf } from './rollups.ts';

export type FilterNode = { and: FilterNode[] } | { or: FilterNode[] } | { not: FilterNode } | Condition;
export interface Condition {
  field: string;
  op: string;
  value?: unknown;
}

/** Two-valued: `not x` matches exactly the records `x` does not; an empty `and` matches all, an empty `or` none. */
export function matches(world: RefWorld, node: FilterNode, record: RefRecord): boolean {
  if ('and' in node) return node.and.every((child) => matches(world, child, record));
  if ('or' in node) return node.or.some((child) => matches(world, child, record));
  if ('not' in node) return !matches(world, node.not, record);
  return conditionHolds(world, node, record);
}

/** Negative ops are "empty, or not the positive op". */
const NEGATIVE: Record<string, string> = { neq: 'eq', not_contains: 'contains', is_none_of: 'is_any_of', has_none_of: 'has_any_of' };

function conditionHolds(world: RefWorld, c: Condition, record: RefRecord): boolean {
  const [name, path] = c.field.split('.');
  const field = fieldOf(world, name);
  if (field.type === 'link' || field.type === 'lookup' || (field.type === 'rollup' && field.fn === 'unique')) return acrossHolds(world, field, path, c, record);
  if (field.type === 'rollup') return rollupHolds(world, field, c, record);
  return cellHolds(world, field, c, cellOf(world, record, field));
}

/**
 * A rollup other than `unique` is tested on its value with the ops of that value: counts, sums
 * and averages as numbers, concat as text, the others as the field they read.
 */
function rollupHolds(world: RefWorld, field: RefField, c: Condition, record: RefRecord): boolean {
  const linked = world.linked!;
  const target = fieldOf(linked, field.target!);
  const cells = linkedRecords(world, record, field.via!)
    .map((r) => cellOf(linked, r, target))
    .filter((cell): cell is string | number => cell !== null);
  const value = rollupOf(field.fn!, target, cells);
  return cellHolds(linked, rollupValueField(field, target), c, value);
}

/** The field a rollup's value is tested (and generated) as. */
export function rollupValueField(field: RefField, target: RefField): RefField {
  if (field.fn === 'count' || field.fn === 'sum' || field.fn === 'avg') return { api_name: field.api_name, type: field.fn === 'count' ? 'count' : 'number' };
  if (field.fn === 'concat') return { api_name: field.api_name, type: 'text' };
  return target;
}

function cellHolds(world: RefWorld, field: RefField, c: Condition, cell: Cell): boolean {
  if (c.op === 'is_empty') return cell === null;
  if (c.op === 'is_not_empty') return cell !== null;
  const positive = NEGATIVE[c.op];
  if (positive) return cell === null || !holds(world, field, positive, c.value, cell);
  // Comparisons never match an empty cell.
  return cell !== null && holds(world, field, c.op, c.value, cell);
}

/**
 * Through a link (`link.field`, or a lookup: the field it reads): some live linked record matches;
 * negative ops and `is_empty`: none matches the positive op. A link alone is tested by record ids.
 */
function acrossHolds(world: RefWorld, field: RefField, path: string | undefined, c: Condition, record: RefRecord): boolean {
  const linked = linkedRecords(world, record, field.type === 'link' ? field.api_name : field.via!);
  if (field.type === 'link' && path === undefined) return linkHolds(c, new Set(linked.map((r) => r.id)));
  const positive = c.op === 'is_empty' ? 'is_not_empty' : NEGATIVE[c.op];
  const target = field.type === 'link' ? path! : field.target!;
  const some = linked.some((r) => conditionHolds(world.linked!, { field: target, op: positive ?? c.op, value: c.value }, r));
  return positive ? !some : some;
}

function linkHolds(c: Condition, ids: Set<string>): boolean {
  const wanted = ((c.value ?? []) as string[]).map((id) => id.toLowerCase());
  switch (c.op) {
    case 'is_empty': return ids.size === 0;
    case 'is_not_empty': return ids.size > 0;
    case 'has_any_of': return wanted.some((id) => ids.has(id));
    case 'has_all_of': return wanted.every((id) => ids.has(id));
    case 'has_none_of': return !wanted.some((id) => ids.has(id));
    default: throw new Error(`reference: link op ${c.op}`);
  }
}

/** A positive op on a non-empty cell. */
function holds(world: RefWorld, field: RefField, op: string, value: unknown, cell: Exclude<Cell, null>): boolean {
  switch (field.type) {
    case 'text':
      return textHolds(op, value, (cell as string).toLowerCase());
    case 'number':
    case 'autonumber':
    case 'count':
      return op === 'is_any_of' ? (value as number[]).includes(cell as number) : ordered(op, value as number, cell as number);
    case 'checkbox':
      return op === 'eq' && cell === value;
    case 'date':
      if (op === 'within') {
        const { from, to } = value as { from: string; to: string };
        return from <= (cell as string) && (cell as string) <= to;
      }
      return ordered(op, value as string, cell as string);
    case 'datetime':
    case 'created_at':
      return instantHolds(field, op, value, cell as bigint);
    case 'single_select':
      return listHolds(op, value, (v) => choiceId(field, v as string), cell as string);
    case 'user':
      return listHolds(op, value, (v) => personOf(world, v as string), cell as string);
    case 'multi_select':
      return multiHolds(field, op, value as string[], cell as string[]);
    default:
      throw new Error(`reference: ${field.type} is tested through its link`);
  }
}

function textHolds(op: string, value: unknown, text: string): boolean {
  const v = typeof value === 'string' ? value.toLowerCase() : '';
  switch (op) {
    case 'eq': return text === v;
    case 'contains': return text.includes(v);
    case 'starts_with': return text.startsWith(v);
    case 'ends_with': return text.endsWith(v);
    case 'is_any_of': return (value as string[]).some((x) => x.toLowerCase() === text);
    default: throw new Error(`reference: text op ${op}`);
  }
}

/** eq and the comparisons, of numbers, days or instants. */
function ordered<T extends number | string | bigint>(op: string, value: T, cell: T): boolean {
  switch (op) {
    case 'eq': return cell === value;
    case 'gt': case 'after': return cell > value;
    case 'gte': case 'on_or_after': return cell >= value;
    case 'lt': case 'before': return cell < value;
    case 'lte': case 'on_or_before': return cell <= value;
    default: throw new Error(`reference: op ${op}`);
  }
}

/** An instant value compares as that instant; a day as its span in the field's zone. */
function instantHolds(field: RefField, op: string, value: unknown, us: bigint): boolean {
  const zone = field.zone ?? 'UTC';
  if (op === 'within') {
    const { from, to } = value as { from: string; to: string };
    return dayStartUs(from, zone) <= us && us < dayStartUs(nextDay(to), zone);
  }
  const text = value as string;
  if (text.includes('T')) return ordered(op, instantUs(text, zone), us);
  const [start, end] = [dayStartUs(text, zone), dayStartUs(nextDay(text), zone)];
  switch (op) {
    case 'eq': return start <= us && us < end;
    case 'before': return us < start;
    case 'after': return us >= end;
    case 'on_or_before': return us < end;
    case 'on_or_after': return us >= start;
    default: throw new Error(`reference: datetime op ${op}`);
  }
}

function listHolds(op: string, value: unknown, resolve: (v: unknown) => string, cell: string): boolean {
  if (op === 'eq') return resolve(value) === cell;
  if (op === 'is_any_of') return (value as unknown[]).map(resolve).includes(cell);
  throw new Error(`reference: op ${op}`);
}

function personOf(world: RefWorld, value: string): string {
  return value === 'me' ? world.me : value.toLowerCase();
}

function multiHolds(field: RefField, op: string, value: string[], cell: string[]): boolean {
  const ids = value.map((v) => choiceId(field, v));
  switch (op) {
    case 'has_any_of': return ids.some((id) => cell.includes(id));
    case 'has_all_of': return ids.every((id) => cell.includes(id));
    case 'eq': return ids.every((id) => cell.includes(id)) && cell.every((id) => ids.includes(id));
    default: throw new Error(`reference: multi_select op ${op}`);
  }
}
