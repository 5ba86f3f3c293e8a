import type { Knex } from 'knex';

/**
 * Who watches which record. `record_id` has no foreign key (records live in one table per
 * database): the records plugin deletes the rows of purged records, and of members who leave.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('record_watchers', (t) => {
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('database_id').notNullable().references('databases.id').onDelete('CASCADE');
    t.uuid('record_id').notNullable();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['database_id', 'record_id', 'user_id']);
    // The watchers list, keyset paged oldest first.
    t.index(['database_id', 'record_id', 'created_at', 'user_id']);
    // A leaving member's watches.
    t.index(['workspace_id', 'user_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('record_watchers');
}
