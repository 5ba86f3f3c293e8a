import type { Knex } from 'knex';

/**
 * A relation joins two databases of a workspace (or a database with itself) through a link field
 * on each side; its links live in a junction table of its own (junction.ts), made with it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('relations', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('kind').notNullable();
    t.uuid('from_database_id').notNullable().references('databases.id').onDelete('CASCADE');
    t.uuid('to_database_id').notNullable().references('databases.id').onDelete('CASCADE');
    t.uuid('from_field_id').notNullable();
    t.uuid('to_field_id').notNullable();
    t.text('junction_table').notNullable().unique();
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workspace_id', 'created_at', 'id']);
    t.index(['from_database_id']);
    t.index(['to_database_id']);
  });
  await knex.raw("ALTER TABLE relations ADD CONSTRAINT relations_kind CHECK (kind IN ('one_to_many', 'many_to_many'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('relations');
}
