import type { Knex } from 'knex';

/**
 * `synced`: a field whose values a source writes (the sources plugin). The API refuses writes to it as it does to a
 * computed field's; the source's own runs write it. A source that is deleted leaves its fields ordinary.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('fields', (t) => {
    t.boolean('synced').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('fields', (t) => {
    t.dropColumn('synced');
  });
}
