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
  return row.table_name;
}
