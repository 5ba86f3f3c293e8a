import type { Knex } from 'knex';

/**
 * Tables whose metadata is gone (a database's records, a relation's links) and that a job drops,
 * one per transaction: dropping hundreds in the deleting transaction (a workspace with many
 * databases) would exhaust PostgreSQL's lock table.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('databases_table_drops', (t) => {
    t.bigIncrements('id').primary();
    t.text('table_name').notNullable().unique();
    t.timestamp('queued_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('databases_table_drops');
}
