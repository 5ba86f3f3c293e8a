import type { Knex } from 'knex';

/**
 * One row per real import: a job's state and progress (`queued` → `running` → `succeeded` | `failed`), and the
 * id that activity and versions name as the origin of what it wrote. No foreign keys: the database and the user
 * belong to other plugins; the rows go with their database (a `databases.databases` tap).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('import_runs', (t) => {
    t.uuid('id').primary();
    t.uuid('workspace_id').notNullable();
    t.uuid('database_id').notNullable();
    t.uuid('created_by').notNullable();
    /** Who the job writes as (a session or a token, as the request came), so history names the same actor and origin. */
    t.jsonb('actor').notNullable();
    t.jsonb('mapping').notNullable();
    /** The uploaded file, until the import ends. */
    t.text('blob_key');
    t.text('status').notNullable();
    t.integer('rows');
    t.integer('done').notNullable().defaultTo(0);
    t.integer('created').notNullable().defaultTo(0);
    t.jsonb('errors').notNullable().defaultTo('[]');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.index(['database_id']);
  });
  await knex.raw("ALTER TABLE import_runs ADD CONSTRAINT import_runs_status CHECK (status IN ('queued','running','succeeded','failed'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('import_runs');
}
