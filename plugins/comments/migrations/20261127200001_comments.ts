import type { Knex } from 'knex';

/**
 * Comments on records. `record_id` has no foreign key (records live in one table per database): comments go with
 * their database or workspace by cascade, and the plugin removes those of records purged from the trash. An
 * author erased (or whose account is deleted) leaves the comment with `author_id` null: its text belongs to the
 * workspace.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('comments', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('database_id').notNullable().references('databases.id').onDelete('CASCADE');
    t.uuid('record_id').notNullable();
    t.uuid('author_id').references('users.id').onDelete('SET NULL');
    t.jsonb('content').notNullable();
    t.text('text').notNullable();
    t.jsonb('mentions').notNullable().defaultTo('[]');
    t.boolean('edited').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // A record's comments, oldest first; also the sweep of purged records.
    t.index(['database_id', 'record_id', 'created_at', 'id']);
    // A member's export and erasure.
    t.index(['author_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('comments');
}
