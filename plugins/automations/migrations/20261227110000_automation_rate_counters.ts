import type { Knex } from 'knex';

/**
 * The plugin's rate counters (core/rate-limiter.ts), shared by every process, only hashed keys: runs started per
 * workspace and minute, and posts per inbound hook token.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('automation_rate_counters', (t) => {
    t.text('key').primary();
    t.integer('hits').notNullable();
    t.timestamp('window_ends', { useTz: true }).notNullable().index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('automation_rate_counters');
}
