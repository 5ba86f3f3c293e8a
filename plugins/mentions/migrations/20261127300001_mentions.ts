import type { Knex } from 'knex';

/**
 * One row per (source, mentioned user): a comment, a record's description (source id: the record's) or a document.
 * Rows go with their workspace, database, document or mentioned user by cascade (a document deleted on its own or
 * with its space), and the plugin removes those of deleted comments and of records purged from the trash. The
 * writer's id becomes null when erased.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('mentions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('source_type').notNullable();
    t.uuid('source_id').notNullable();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('mentioned_by').references('users.id').onDelete('SET NULL');
    t.uuid('database_id').references('databases.id').onDelete('CASCADE');
    t.uuid('record_id');
    t.uuid('document_id').references('documents.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['source_type', 'source_id', 'user_id']);
    // The caller's list, newest first.
    t.index(['workspace_id', 'user_id', 'created_at', 'id']);
    // The sweep of purged records; the cascades.
    t.index(['database_id', 'record_id']);
    t.index(['document_id']);
    t.index(['mentioned_by']);
  });
  await knex.raw("ALTER TABLE mentions ADD CONSTRAINT mentions_source_type CHECK (source_type IN ('comment','description','document'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('mentions');
}
