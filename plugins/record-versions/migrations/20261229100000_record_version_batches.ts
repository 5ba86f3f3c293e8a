import type { Knex } from 'knex';

/**
 * Version 1 of the records a batch created (an import): one row per batch rather than one per record. `cells` holds
 * each record's cells by record id, in the order of `fields` (the kept field ids then), as `record_versions.values`
 * keeps them; `record_ids` finds a record's batch. A record's later versions are rows of `record_versions`, numbered
 * from 2. Like versions, a batch goes with its database.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('record_version_batches', (t) => {
    t.bigIncrements('id').primary();
    t.uuid('database_id').notNullable();
    t.uuid('workspace_id').notNullable();
    t.jsonb('origin').notNullable();
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.jsonb('fields').notNullable();
    t.specificType('record_ids', 'uuid[]').notNullable();
    t.jsonb('cells').notNullable();
    t.index(['database_id']);
  });
  await knex.raw('CREATE INDEX record_version_batches_records ON record_version_batches USING gin (record_ids)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('record_version_batches');
}
