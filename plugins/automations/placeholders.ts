import type { TriggerData } from './actions.ts';

const WHOLE = /^\{\{\s*([a-z_]+(?:\.[A-Za-z0-9_]+)*)\s*\}\}$/;
const ANY = /\{\{\s*([a-z_]+(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g;
/** A path naming one cell of the record: `record.<api_name>`, `trigger.before.<api_name>`, `trigger.after.<api_name>`. */
const CELL = /^(?:record|trigger\.before|trigger\.after)\.([A-Za-z0-9_]+)$/;

/** A cell's text form, as a CSV export writes it (its field type's `csv.format`); undefined for a name that is no field. */
export type CellText = (apiName: string, value: unknown) => string | undefined;

/** What a placeholder path reads: `record.<api_name>` (the values after the write), `trigger.<path>` (before, after, body…). */
function lookup(path: string, trigger: TriggerData): unknown {
  const [root, ...rest] = path.split('.');
  let at: unknown = root === 'record' ? (trigger.after ?? trigger.before) : root === 'trigger' ? trigger : undefined;
  for (const key of rest) at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  return at;
}

function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function cellText(path: string, value: unknown, cells: CellText | undefined): string | undefined {
  const cell = CELL.exec(path);
  return cell && cells && value !== null && value !== undefined ? cells(cell[1], value) : undefined;
}

/** Whether a config has a placeholder naming a record's cell: only then does a run need the database's fields. */
export function readsCells(value: unknown): boolean {
  if (typeof value === 'string') return [...value.matchAll(ANY)].some((m) => CELL.test(m[1]));
  if (Array.isArray(value)) return value.some(readsCells);
  if (value !== null && typeof value === 'object') return Object.values(value).some(readsCells);
  return false;
}

/**
 * Fills `{{record.x}}` and `{{trigger.x}}` in every string of a config. Inside text, a cell becomes its text form, as
 * the CSV export writes it (a select's label, a user's name, link titles, a number at its precision). A string that is
 * one placeholder takes the value as it is (a number stays a number, an unknown path is null), except a cell holding
 * an object or a list (selects, users, links), which takes its text form too: a label is also what a write of a
 * select takes.
 */
export function fill(value: unknown, trigger: TriggerData, cells?: CellText): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) {
      const found = lookup(whole[1], trigger);
      return (typeof found === 'object' ? cellText(whole[1], found, cells) : undefined) ?? found ?? null;
    }
    return value.replace(ANY, (_m, path: string) => {
      const found = lookup(path, trigger);
      return cellText(path, found, cells) ?? asText(found);
    });
  }
  if (Array.isArray(value)) return value.map((v) => fill(v, trigger, cells));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, trigger, cells)]));
  return value;
}
