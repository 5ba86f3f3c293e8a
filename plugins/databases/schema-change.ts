import type { Db } from '../../core/db.ts';
import { notFound } from '../../core/errors.ts';

/**
 * Opens a change to a database's fields: bumps `schema_version`, which holds the database row
 * until commit. Record writers hold that row FOR SHARE and compare the version with the fields
 * they cached, so each of them either finishes before the change or sees it. It comes before
 * any DDL, so every transaction takes the database row before the records table (no deadlock
 * with a writer). Returns the records table's name. `together`: other databases changing in
 * the same transaction (the two sides of a relation), locked in the same step.
 *
 * Databases whose computed fields read this one (a field with `options.target_database_id`:
 * links, lookups) see its fields through their own: their versions move too, so their cached
 * fields and prepared pages are renewed. This database and those are locked together in id
 * order, so two changes on the two sides of a relation wait for each other instead of
 * deadlocking.
 */
export async function beginSchemaChange(trx: Db, databaseId: string, together: string[] = []): Promise<string> {
  const changed = [databaseId, ...together];
  const dependents = (await trx('fields').whereRaw("options->>'target_database_id' = ANY(?)", [changed]).distinct().pluck('database_id')) as string[];
  const locked = (await trx('databases').whereIn('id', [...new Set([...changed, ...dependents])]).orderBy('id').forUpdate().select('id', 'table_name')) as Array<{ id: string; table_name: string }>;
  const own = locked.find((row) => row.id === databaseId);
  if (!own) throw notFound();
  await trx('databases').whereIn('id', locked.map((row) => row.id)).increment('schema_version', 1);
  return own.table_name;
}
