import type { Knex } from 'knex';

/**
 * Sources (what a workspace syncs into which database, from which connection, how often), their runs, and the rows
 * each source has written: a row's key at the source, the record it became and a hash of the values last written,
 * so a run matches rows by key (never by position) and leaves unchanged ones alone. A source goes with its workspace;
 * runs and rows go with their source. The database a source writes is the databases plugin's and outlives it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sources', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('database_id').notNullable();
    t.uuid('connection_id');
    t.text('kind').notNullable();
    t.text('name').notNullable();
    t.jsonb('config').notNullable();
    // Property key → field id: the fields this source writes.
    t.jsonb('fields').notNullable().defaultTo('{}');
    t.text('schedule').notNullable();
    t.text('delete_policy').notNullable();
    t.text('status').notNullable();
    // Where the next incremental run starts: saved with the last page of the run that produced it.
    t.jsonb('cursor');
    t.integer('failures').notNullable().defaultTo(0);
    t.uuid('last_run_id');
    // The provider's push channel to the connection's receiver (`{ id, resourceId, expiresAt }`), for kinds that push.
    t.jsonb('push_channel');
    t.timestamp('next_run_at', { useTz: true });
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workspace_id', 'created_at', 'id']);
    t.index(['database_id']);
  });
  await knex.raw(`CREATE INDEX sources_due ON sources (next_run_at) WHERE next_run_at IS NOT NULL`);
  await knex.schema.createTable('source_runs', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('source_id').notNullable().references('sources.id').onDelete('CASCADE');
    t.uuid('workspace_id').notNullable();
    t.text('status').notNullable();
    t.text('trigger').notNullable();
    t.boolean('full').notNullable();
    // Where a stopped run goes on from: the cursor after its last written page, saved with that page.
    t.jsonb('page_cursor');
    t.boolean('resumed').notNullable().defaultTo(false);
    t.boolean('snapshot');
    t.integer('created').notNullable().defaultTo(0);
    t.integer('updated').notNullable().defaultTo(0);
    t.integer('deleted').notNullable().defaultTo(0);
    t.integer('skipped').notNullable().defaultTo(0);
    t.text('error');
    t.jsonb('row_errors').notNullable().defaultTo('[]');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('started_at', { useTz: true });
    t.timestamp('heartbeat_at', { useTz: true });
    t.timestamp('finished_at', { useTz: true });
    t.index(['source_id', 'created_at', 'id']);
  });
  await knex.raw(`CREATE UNIQUE INDEX source_runs_one_live ON source_runs (source_id) WHERE status IN ('queued', 'running')`);
  await knex.schema.createTable('source_rows', (t) => {
    t.uuid('source_id').notNullable().references('sources.id').onDelete('CASCADE');
    t.text('key').notNullable();
    t.uuid('record_id').notNullable();
    t.text('hash').notNullable();
    // The run that last listed the row: after a snapshot, rows another run listed last are gone at the source.
    t.uuid('seen_run');
    t.boolean('gone').notNullable().defaultTo(false);
    t.primary(['source_id', 'key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('source_rows');
  await knex.schema.dropTable('source_runs');
  await knex.schema.dropTable('sources');
}
