import type { Knex } from 'knex';

/**
 * Rich text of two kinds: the description of a record (one per record, keyed by its database and id; records live
 * in one table per database, so `record_id` has no foreign key and the plugin removes descriptions of records
 * purged from the trash), and standalone documents in a space, optionally in a folder. Both go with their
 * database, space or workspace by cascade; a folder deleted leaves its documents at the top of the space, as
 * databases are. Writers' ids become null when their account goes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('document_descriptions', (t) => {
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('database_id').notNullable().references('databases.id').onDelete('CASCADE');
    t.uuid('record_id').notNullable();
    t.jsonb('content').notNullable();
    t.text('text').notNullable();
    t.integer('version').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.uuid('updated_by').references('users.id').onDelete('SET NULL');
    t.primary(['database_id', 'record_id']);
    // A member's export and erasure.
    t.index(['updated_by']);
  });
  await knex.schema.createTable('documents', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('space_id').notNullable().references('spaces.id').onDelete('CASCADE');
    t.uuid('folder_id').references('folders.id').onDelete('SET NULL');
    t.text('title').notNullable();
    t.jsonb('content');
    t.text('text').notNullable().defaultTo('');
    t.integer('version').notNullable().defaultTo(0);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.uuid('updated_by').references('users.id').onDelete('SET NULL');
    // The list, newest first, whole workspace or one space.
    t.index(['workspace_id', 'created_at', 'id']);
    t.index(['space_id', 'created_at', 'id']);
    t.index(['created_by']);
    t.index(['updated_by']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('documents');
  await knex.schema.dropTable('document_descriptions');
}
