import type { Knex } from 'knex';

/**
 * The realtime feed: the events streams carry (records, comments, fields), in the order their fan-out committed, kept
 * for the replay window; and the processes that have streams open, so that every process records the events others
 * stream. Rows name workspaces without a foreign key: a workspace deleted while its events fan out must not fail them;
 * the feed is pruned by age.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('realtime_feed', (t) => {
    t.bigIncrements('seq').primary();
    t.bigInteger('event_id').notNullable();
    t.text('name').notNullable();
    t.uuid('workspace_id').notNullable();
    t.uuid('actor_id');
    t.jsonb('payload').notNullable();
    t.timestamp('occurred_at', { useTz: true }).notNullable();
    t.timestamp('recorded_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['recorded_at']);
    t.index(['workspace_id', 'seq']);
  });
  await knex.schema.createTable('realtime_listeners', (t) => {
    t.text('process').primary();
    t.timestamp('seen_at', { useTz: true }).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('realtime_listeners');
  await knex.schema.dropTableIfExists('realtime_feed');
}
