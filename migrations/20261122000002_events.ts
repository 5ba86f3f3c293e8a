import type { Knex } from 'knex';

/** The domain-event outbox: written in the writer's transaction, fanned out after commit. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('kernel_events', (t) => {
    t.bigIncrements('id').primary();
    t.text('name').notNullable();
    t.jsonb('payload').notNullable();
    t.uuid('workspace_id');
    t.uuid('actor_id');
    t.timestamp('occurred_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('dispatched_at', { useTz: true });
  });
  await knex.raw('CREATE INDEX kernel_events_pending ON kernel_events (id) WHERE dispatched_at IS NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('kernel_events');
}
