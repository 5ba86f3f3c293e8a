import type { Db } from '../../core/db.ts';

/** `name`, or `name (2)`, `name (3)`… : the first not in `taken` (lower-cased names). A collision never overwrites. */
export function uniqueName(name: string, taken: Iterable<string>, maxLength = 200): string {
  const used = new Set([...taken].map((n) => n.toLowerCase()));
  if (!used.has(name.toLowerCase())) return name;
  for (let n = 2; ; n += 1) {
    const suffix = ` (${n})`;
    const candidate = `${name.slice(0, maxLength - suffix.length)}${suffix}`;
    if (!used.has(candidate.toLowerCase())) return candidate;
  }
}

/**
 * Gives a row made by an install the moment it was made, not the moment the install's transaction began: lists
 * ordered by `created_at` (spaces, databases, relations) then show what one install made in the order it was made
 * (and export it in that order again), instead of in the order of random ids.
 */
export async function stampMadeNow(trx: Db, table: string, id: string, columns: string[] = ['created_at', 'updated_at']): Promise<void> {
  const set = columns.map(() => '?? = c.now').join(', ');
  await trx.raw(`UPDATE ?? AS t SET ${set} FROM (SELECT clock_timestamp() AS now) c WHERE t.id = ?`, [table, ...columns, id]);
}
