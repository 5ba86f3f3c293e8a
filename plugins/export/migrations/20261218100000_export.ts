import type { Knex } from 'knex';

/**
 * Workspace exports: one row per request, its progress while the job runs, the zip's blob once it succeeded. The row
 * goes with its workspace; the zip goes after `retentionHours`, the row then says `expired`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('export_workspace_exports', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('requested_by').references('users.id').onDelete('SET NULL');
    t.text('status').notNullable().defaultTo('queued');
    t.integer('done').notNullable().defaultTo(0);
    t.integer('total').notNullable().defaultTo(0);
    t.text('blob_key');
    t.bigInteger('size');
    t.text('error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('finished_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true });
    t.index(['workspace_id', 'created_at', 'id']);
  });
  await knex.raw("ALTER TABLE export_workspace_exports ADD CONSTRAINT export_workspace_exports_status CHECK (status IN ('queued','running','succeeded','failed','expired'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('export_workspace_exports');
}
