import { canonicalJson } from '../../core/canonical-json.ts';
import type { ChangedField, RecordChange } from '../records/public.ts';

const idOf = (v: unknown) => (v && typeof v === 'object' && 'id' in v ? (v as { id: unknown }).id : v);

/**
 * A cell as records read it, turned into what a write accepts: select options, users, linked records and attachments
 * are read as objects (`{ id, label, color }`, `{ id, name }`, `{ id, title }`, `{ id, name, url, … }`) and written by
 * id. Other cells are written as read.
 */
export function writable(type: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'single_select':
    case 'user':
      return idOf(value);
    case 'multi_select':
    case 'link':
    case 'attachment':
      return Array.isArray(value) ? value.map(idOf) : value;
    default:
      return value;
  }
}

/** Empty as a new record's cell reads. */
export function isEmpty(value: unknown): boolean {
  return value === null || value === undefined || value === '' || value === false || (Array.isArray(value) && value.length === 0);
}

/** The fields a version keeps, in the write's order: the writable ones (links included); computed and system fields follow from them. */
export function keptFields(fields: ChangedField[]): ChangedField[] {
  return fields.filter((f) => !f.read_only);
}

/**
 * What a version keeps of a record a write changed: its cells of `kept` (`keptFields`), in that order — the database
 * keys them by field id — and which of them changed. A user cell is kept as the user's id and named when read:
 * versions keep nobody's name.
 */
export function versionOf(change: RecordChange, kept: ChangedField[]): { values: unknown[]; changed: string[] } | undefined {
  const after = change.after;
  if (!after) return undefined;
  const values: unknown[] = new Array(kept.length);
  const changed: string[] = [];
  const differs = change.kind === 'created' ? undefined : new Set(change.changed);
  for (let i = 0; i < kept.length; i++) {
    const f = kept[i];
    const value = after.values[f.api_name] ?? null;
    values[i] = f.type === 'user' ? writable(f.type, value) : value;
    if (differs ? differs.has(f.id) : !isEmpty(value)) changed.push(f.id);
  }
  if (change.kind === 'updated' && changed.length === 0) return undefined;
  return { values, changed };
}

/** Whether two cells hold the same thing, as a write would store it (a select option renamed since is the same option). */
export function sameCell(type: string, a: unknown, b: unknown): boolean {
  const x = writable(type, a);
  const y = writable(type, b);
  // Most cells are scalars: compared without serialising them.
  if (x === y) return true;
  return typeof x === 'object' && typeof y === 'object' && x !== null && y !== null && canonicalJson(x) === canonicalJson(y);
}

