import type { Knex } from 'knex';

/**
 * The directions slow queries taught a field, one flag each: a field sorted both ways needs an index each way
 * (records sort `key ASC NULLS LAST, id` and `key DESC NULLS LAST, id`, and neither index serves the other order).
 * Until now `descending` alone said the one direction learned.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('index_fields', (t) => {
    t.boolean('ascending').notNullable().defaultTo(false);
  });
  await knex('index_fields').update({ ascending: knex.raw('NOT descending') });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('index_fields', (t) => {
    t.dropColumn('ascending');
  });
}
