import type { Knex } from 'knex';

/**
 * `sort_indexes`: the record orders an index of the database's table serves, as `<sort key> <direction>` (written by
 * the view-index sync, read with the fields). Readers page straight down such an index instead of picking ids first.
 * Updating it signals the `databases` topic, so every process re-reads it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('databases', (t) => {
    t.jsonb('sort_indexes').notNullable().defaultTo('[]');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('databases', (t) => {
    t.dropColumn('sort_indexes');
  });
}
