import type { Knex } from 'knex';

/**
 * What each user starred: a database, or a record (whose `database_id` is the database holding it).
 * `target_id` has no foreign key for records (they live in one table per database): a favorite
 * goes with its database, its user and its workspace by cascade, and the plugin removes those of
 * members who leave and of records purged from the trash.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('favorites', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('target_type').notNullable();
    t.uuid('target_id').notNullable();
    t.uuid('database_id').notNullable().references('databases.id').onDelete('CASCADE');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['user_id', 'target_type', 'target_id']);
    // The caller's list, newest first; also a leaving member's favorites and the workspace's cascade.
    t.index(['workspace_id', 'user_id', 'created_at', 'id']);
    // The database's cascade, and the sweep of purged records.
    t.index(['database_id', 'target_type']);
  });
  await knex.raw("ALTER TABLE favorites ADD CONSTRAINT favorites_target_type CHECK (target_type IN ('record','database'))");
  // A starred database is its own database.
  await knex.raw("ALTER TABLE favorites ADD CONSTRAINT favorites_database_target CHECK (target_type <> 'database' OR target_id = database_id)");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('favorites');
}
