/**
 * What the reference evaluator knows of a database, kept apart from the SQL engine on purpose:
 * the fields (with the options that decide their values), the live records as plain cells, and
 * the people whose names decide how user cells sort.
 */

export const FIXED_ZONES = { UTC: 0, 'Asia/Kolkata': 330, 'America/Bogota': -300 } as const;
/** Zones without daylight saving, so the reference computes a day's span from a fixed offset (minutes east of UTC). */
export type FixedZone = keyof typeof FIXED_ZONES;

export type FieldKind = 'text' | 'number' | 'checkbox' | 'date' | 'datetime' | 'single_select' | 'multi_select' | 'user' | 'autonumber' | 'created_at';

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
}

export interface RefWorld {
  fields: RefField[];
  /** Live records. */
  records: RefRecord[];
  /** Display names by user id. */
  userNames: Map<string, string>;
  /** Who queries ("me"). */
  me: string;
}

export function fieldOf(world: RefWorld, apiName: string): RefField {
  const field = world.fields.find((f) => f.api_name === apiName);
  if (!field) throw new Error(`reference: no field ${apiName}`);
  return field;
}

/** The value a filter or sort sees: the record's own cell, or the system value a system field reads. */
export function cellOf(record: RefRecord, field: RefField): Cell {
  if (field.type === 'autonumber') return record.number;
  if (field.type === 'created_at') return record.createdUs;
  const cell = record.cells[field.api_name];
  return cell === undefined ? (field.type === 'checkbox' ? false : null) : cell;
}
