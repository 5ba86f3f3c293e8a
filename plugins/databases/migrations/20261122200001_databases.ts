import type { Knex } from 'knex';

/**
 * Metadata of user databases. Each database's records live in a table of their own
 * (`table_name`, one natively typed column per field), created and altered by the
 * databases plugin in the same transaction as these rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('databases', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('space_id').notNullable().references('spaces.id').onDelete('CASCADE');
    t.uuid('folder_id').references('folders.id').onDelete('SET NULL');
    t.text('name').notNullable();
    t.text('description');
    t.text('table_name').notNullable().unique();
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workspace_id', 'created_at', 'id']);
    t.index(['space_id']);
  });

  await knex.schema.createTable('fields', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('database_id').notNullable().references('databases.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('api_name').notNullable();
    t.text('type').notNullable();
    t.jsonb('options').notNullable().defaultTo('{}');
    // Null for types that read a system column or are computed.
    t.text('column_name');
    t.boolean('is_title').notNullable().defaultTo(false);
    t.integer('position').notNullable();
    t.timestamp('deleted_at', { useTz: true });
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Stable and unique for ever, soft-deleted fields included, so a restore never collides.
    t.unique(['database_id', 'api_name']);
    t.index(['database_id', 'position']);
  });
  // Names are what people see: unique among live fields, case-insensitively.
  await knex.raw('CREATE UNIQUE INDEX fields_live_name ON fields (database_id, lower(name)) WHERE deleted_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('fields');
  await knex.schema.dropTable('databases');
}
