import type { Knex } from 'knex';

/**
 * The activity trail. No foreign keys: a key check per row would slow every write it records, and what an entry
 * names (record, database, actor) may go while the entry stays — records purged from the trash keep their trail, an
 * erased member's entries stay without them. A deleted database takes its entries (the `databases.databases` hook).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('activity_entries', (t) => {
    // Time-ordered (UUIDv7), made by the plugin: new keys land at the right edge of the index, and the retention
    // purge walks it oldest first.
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable();
    t.uuid('database_id').notNullable();
    t.uuid('record_id');
    t.text('type').notNullable();
    t.uuid('actor_id');
    t.jsonb('origin').notNullable();
    t.jsonb('changes').notNullable();
    // The domain event an entry came from (field changes): delivery is at least once, the entry once.
    t.bigInteger('event_id');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // A record's trail, newest first.
    t.index(['record_id', 'created_at', 'id']);
    // The workspace's trail, newest first, narrowed or not to a database; a deleted database's entries. No index of
    // its own for the database: one more per row cost every write more than the narrowed list gains.
    t.index(['workspace_id', 'created_at', 'id']);
  });
  await knex.raw('CREATE UNIQUE INDEX activity_entries_event_id ON activity_entries (event_id) WHERE event_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('activity_entries');
}
