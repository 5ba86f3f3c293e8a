import type { Knex } from 'knex';

/**
 * Whether the queries that taught a field sorted it descending: records sort `key DESC NULLS LAST, id ASC`, which only
 * an index built that way serves.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('index_fields', (t) => {
    t.boolean('descending').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('index_fields', (t) => {
    t.dropColumn('descending');
  });
}
