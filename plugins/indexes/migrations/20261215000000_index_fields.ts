import type { Knex } from 'knex';

/**
 * What the indexes plugin knows of a field: the mode a creator set (`auto`, `pin`, `forbid`) and, for `auto`, how
 * often slow queries filtered or sorted on it and when it last did. A row goes with its field.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('index_fields', (t) => {
    t.uuid('database_id').notNullable().references('databases.id').onDelete('CASCADE');
    t.uuid('field_id').notNullable().references('fields.id').onDelete('CASCADE');
    t.text('mode').notNullable().defaultTo('auto');
    t.integer('uses').notNullable().defaultTo(0);
    t.timestamp('learned_at', { useTz: true });
    t.timestamp('last_used_at', { useTz: true });
    t.primary(['database_id', 'field_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('index_fields');
}
