import type { Knex } from 'knex';

/**
 * Webhooks and their deliveries. A delivery row is the queue itself: made in the event fan-out's transaction, claimed
 * by a worker through a lease (`locked_until`) so no lock is held while a receiver answers, kept as the delivery log.
 * The body is stored once per delivery so every attempt sends the same bytes, whatever happens to the event outbox.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhooks', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.specificType('events', 'text[]').notNullable();
    t.uuid('database_id');
    t.boolean('enabled').notNullable().defaultTo(true);
    t.text('disabled_reason');
    t.text('secret').notNullable();
    t.integer('consecutive_failures').notNullable().defaultTo(0);
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workspace_id', 'created_at', 'id']);
  });
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('webhook_id').notNullable().references('webhooks.id').onDelete('CASCADE');
    t.bigInteger('event_id').notNullable();
    t.text('event_type').notNullable();
    t.text('message_id').notNullable();
    t.text('body').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempt').notNullable().defaultTo(0);
    t.integer('response_code');
    t.text('error');
    t.integer('duration_ms');
    t.timestamp('next_retry_at', { useTz: true });
    t.timestamp('locked_until', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['webhook_id', 'created_at', 'id']);
  });
  await knex.raw("ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status CHECK (status IN ('pending','succeeded','failed'))");
  await knex.raw("CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_retry_at) WHERE status = 'pending'");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_deliveries');
  await knex.schema.dropTable('webhooks');
}
