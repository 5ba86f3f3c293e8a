import type { Db } from '../../core/db.ts';

/** Tables per statement: bounds the statement's text and planning time in workspaces with very many databases. */
const TABLES_PER_STATEMENT = 100;

/**
 * Which of `databases` holds the live record `recordId`. A record id names no database, so each
 * table is asked in one `UNION ALL` statement (a primary-key probe per table), chunk by chunk
 * until one answers.
 */
export async function databaseHolding(db: Db, recordId: string, databases: Array<{ id: string; table_name: string }>): Promise<string | undefined> {
  for (let start = 0; start < databases.length; start += TABLES_PER_STATEMENT) {
    const chunk = databases.slice(start, start + TABLES_PER_STATEMENT);
    const probe = 'SELECT ?::uuid AS database_id FROM ?? WHERE id = ? AND deleted_at IS NULL';
    const { rows } = await db.raw(`${chunk.map(() => probe).join(' UNION ALL ')} LIMIT 1`, chunk.flatMap((d) => [d.id, d.table_name, recordId]));
    if (rows.length > 0) return (rows[0] as { database_id: string }).database_id;
  }
  return undefined;
}
