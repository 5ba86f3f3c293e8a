import type { Knex } from 'knex';

/**
 * Approvals: one per `request_approval` step. The run they pause is theirs to resume or end, so an approval goes with
 * its run (deleted with it, by the run retention or the automation's deletion). `expires_at` is fixed at creation: the
 * expiry job finds what is due by index, and a restart loses nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('approvals', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('run_id').notNullable().references('automation_runs.id').onDelete('CASCADE');
    t.uuid('automation_id').notNullable();
    t.uuid('database_id').notNullable();
    t.uuid('record_id');
    t.text('text').notNullable();
    t.jsonb('approver_ids').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.uuid('decided_by').references('users.id').onDelete('SET NULL');
    t.timestamp('decided_at', { useTz: true });
    t.text('comment');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workspace_id', 'created_at', 'id']);
    t.index(['run_id']);
  });
  await knex.raw("CREATE INDEX approvals_due ON approvals (expires_at) WHERE status = 'pending'");
  await knex.raw("ALTER TABLE approvals ADD CONSTRAINT approvals_status CHECK (status IN ('pending','approved','rejected','expired'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('approvals');
}
