import type { Db } from '../../core/db.ts';
import { notFound } from '../../core/errors.ts';

/**
 * Opens a change to a database's fields: bumps `schema_version`, which holds the database row
 * until commit. Record writers hold that row FOR SHARE and compare the version with the fields
 * they cached, so each of them either finishes before the change or sees it. It comes before
 * any DDL, so every transaction takes the database row before the records table (no deadlock
 * with a writer). Returns the records table's name.
 */
export async function beginSchemaChange(trx: Db, databaseId: string): Promise<string> {
  const [row] = await trx('databases').where({ id: databaseId }).increment('schema_version', 1).returning('table_name');
  if (!row) throw notFound();
  await bumpDependents(trx, databaseId);
  return row.table_name;
}

/**
 * Databases whose computed fields read this one (a field with `options.target_database_id`:
 * links, lookups) see its fields through their own: their versions move too, so their cached
 * fields and prepared pages are renewed. Held in id order, so two changes cannot deadlock here.
 */
async function bumpDependents(trx: Db, databaseId: string): Promise<void> {
  const ids = (await trx('databases')
    .whereIn('id', trx('fields').whereRaw("options->>'target_database_id' = ?", [databaseId]).whereNot('database_id', databaseId).select('database_id'))
    .orderBy('id')
    .forUpdate()
    .pluck('id')) as string[];
  if (ids.length > 0) await trx('databases').whereIn('id', ids).increment('schema_version', 1);
}
