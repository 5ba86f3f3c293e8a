import type { Knex } from 'knex';

/**
 * Versions of records, numbered per record from 1. `values` are keyed by field id, so a field renamed since keeps
 * its values, and those of a field deleted since wait under its id for it to be restored (answers leave it out, so no
 * snapshot of names is kept: rows stay small, under the size PostgreSQL would compress out of line). No foreign keys (a key check per row would slow every write): a deleted database takes its
 * versions (the `databases.databases` hook); records purged from the trash keep theirs until the retention purge.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('record_versions', (t) => {
    t.uuid('record_id').notNullable();
    t.integer('seq').notNullable();
    t.uuid('database_id').notNullable();
    t.uuid('workspace_id').notNullable();
    t.jsonb('values').notNullable();
    t.jsonb('changed_fields').notNullable();
    t.jsonb('origin').notNullable();
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // A record's versions, newest first, and the next number.
    t.primary(['record_id', 'seq']);
    // A deleted database's versions, and the retention purge database by database.
    t.index(['database_id', 'created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('record_versions');
}
