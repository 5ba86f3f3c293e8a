import type { Knex } from 'knex';
import { indexTrash } from '../record-table.ts';

/** Each statement commits alone: one transaction over thousands of records tables would run out of locks. */
export const config = { transaction: false };

/** The trash index (record-table.ts, `indexTrash`) on the records tables made before it existed. */
export async function up(knex: Knex): Promise<void> {
  const tables = (await knex('databases').pluck('table_name')) as string[];
  for (const table of tables) await indexTrash(knex, table);
}

export async function down(knex: Knex): Promise<void> {
  const tables = (await knex('databases').pluck('table_name')) as string[];
  for (const table of tables) await knex.raw('DROP INDEX IF EXISTS ??', [`${table}_trash`]);
}
