/**
 * What the reference evaluator knows of a database, kept apart from the SQL engine on purpose:
 * the fields (with the options that decide their values), the live records as plain cells and
 * links, the people whose names decide how user cells sort, and the database links lead to.
 */

export const FIXED_ZONES = { UTC: 0, 'Asia/Kolkata': 330, 'America/Bogota': -300 } as const;
/** Zones without daylight saving, so the reference computes a day's span from a fixed offset (minutes east of UTC). */
export type FixedZone = keyof typeof FIXED_ZONES;

export type FieldKind =
  | 'text' | 'number' | 'checkbox' | 'date' | 'datetime' | 'single_select' | 'multi_select' | 'user' | 'autonumber' | 'created_at'
  | 'link' | 'lookup' | 'rollup' | 'count';

export type RollupFunction = 'count' | 'sum' | 'avg' | 'min' | 'max' | 'earliest' | 'latest' | 'concat' | 'unique';

export interface RefChoice {
  id: string;
  label: string;
}

export interface RefField {
  api_name: string;
  type: FieldKind;
  /** number: decimal places kept. */
  precision?: number;
  /** single_select, multi_select: in their order. */
  choices?: RefChoice[];
  /** datetime, created_at: the zone a day is taken in. */
  zone?: FixedZone;
  /** link: the relation's kind and this database's end of it. */
  relation?: { kind: 'one_to_many' | 'many_to_many'; side: 'from' | 'to' };
  /** lookup, rollup, count: the link field read through. */
  via?: string;
  /** lookup, rollup: the linked database's field read. */
  target?: string;
  /** rollup. */
  fn?: RollupFunction;
}

/**
 * A stored cell: text string, number, checkbox boolean (never null), date `YYYY-MM-DD`, instant
 * as microseconds since the epoch, option id, option ids in choice order, user id; null when empty.
 */
export type Cell = string | number | boolean | bigint | string[] | null;

export interface RefRecord {
  id: string;
  number: number;
  position: string;
  createdUs: bigint;
  /** By api_name, for the fields with a column of their own. */
  cells: Record<string, Cell>;
  /** By link field api_name: the linked records' ids, each with its link's creation instant (µs), live or not. */
  links: Record<string, Array<{ id: string; at: bigint }>>;
}

export interface RefWorld {
  fields: RefField[];
  /** Live records. */
  records: RefRecord[];
  /** Display names by user id. */
  userNames: Map<string, string>;
  /** Who queries ("me"). */
  me: string;
  /** The database the link fields lead to. */
  linked?: RefWorld;
}

export function fieldOf(world: RefWorld, apiName: string): RefField {
  const field = world.fields.find((f) => f.api_name === apiName);
  if (!field) throw new Error(`reference: no field ${apiName}`);
  return field;
}

/** The live records `record` links to through the link field `apiName`, oldest link first, then by id. */
export function linkedRecords(world: RefWorld, record: RefRecord, apiName: string): RefRecord[] {
  const live = new Map(world.linked!.records.map((r) => [r.id, r]));
  return (record.links[apiName] ?? [])
    .filter((l) => live.has(l.id))
    .sort((a, b) => (a.at !== b.at ? (a.at < b.at ? -1 : 1) : a.id < b.id ? -1 : 1))
    .map((l) => live.get(l.id)!);
}

/** The value a filter or sort sees: the record's own cell, the system value a system field reads, or a count of links. */
export function cellOf(world: RefWorld, record: RefRecord, field: RefField): Cell {
  if (field.type === 'autonumber') return record.number;
  if (field.type === 'created_at') return record.createdUs;
  if (field.type === 'count') return linkedRecords(world, record, field.via!).length;
  if (field.type === 'link' || field.type === 'lookup' || field.type === 'rollup') throw new Error(`reference: a ${field.type} has no cell`);
  const cell = record.cells[field.api_name];
  return cell === undefined ? (field.type === 'checkbox' ? false : null) : cell;
}
