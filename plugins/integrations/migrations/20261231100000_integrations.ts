import type { Knex } from 'knex';

/**
 * A workspace's connections to providers (credentials and the signing secret sealed by the kernel's secret box, never
 * stored in clear) and the deliveries their receivers accepted. Both go with their workspace; deliveries with their
 * connection.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('integration_connections', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('provider').notNullable();
    t.text('name').notNullable();
    t.text('status').notNullable();
    t.jsonb('account');
    t.jsonb('scopes').notNullable().defaultTo('[]');
    t.text('credentials');
    t.text('webhook_secret');
    t.uuid('created_by');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true });
    t.index(['workspace_id', 'created_at', 'id']);
  });
  await knex.schema.createTable('integration_deliveries', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('connection_id').notNullable().references('integration_connections.id').onDelete('CASCADE');
    t.uuid('workspace_id').notNullable();
    t.text('provider').notNullable();
    // The provider's own id of the delivery: a second one with the same id is not processed again.
    t.text('delivery_id');
    t.text('event').notNullable();
    // json, not jsonb: what the provider sent is kept as sent, a \u0000 in a string included (jsonb refuses it).
    t.json('payload').notNullable();
    t.text('status').notNullable();
    t.text('error');
    t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('processed_at', { useTz: true });
    t.index(['connection_id', 'received_at', 'id']);
  });
  await knex.raw('CREATE UNIQUE INDEX integration_deliveries_once ON integration_deliveries (connection_id, delivery_id) WHERE delivery_id IS NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('integration_deliveries');
  await knex.schema.dropTable('integration_connections');
}
