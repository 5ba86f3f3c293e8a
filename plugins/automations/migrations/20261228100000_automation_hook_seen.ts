import type { Knex } from 'knex';

/**
 * The `webhook-id`s of signed inbound hook posts already received, each kept while a replay of its post would still
 * pass the timestamp check, with the run it started: a replay is answered with that run and starts nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('automation_hook_seen', (t) => {
    t.uuid('automation_id').notNullable().references('automations.id').onDelete('CASCADE');
    t.text('webhook_id').notNullable();
    t.uuid('run_id');
    t.timestamp('expires_at', { useTz: true }).notNullable().index();
    t.primary(['automation_id', 'webhook_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('automation_hook_seen');
}
