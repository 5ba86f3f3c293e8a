import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Submissions per client address, by window: only a keyed hash of the address is kept (core/rate-limiter.ts).
  await knex.schema.createTable('public_rate_counters', (t) => {
    t.text('key').primary();
    t.integer('hits').notNullable();
    t.timestamp('window_ends', { useTz: true }).notNullable().index();
  });
  // The key of that hash, made once (core/stored-secret.ts): without it a counter's address cannot be guessed back.
  await knex.schema.createTable('public_keys', (t) => {
    t.text('name').primary();
    t.text('secret').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('public_keys');
  await knex.schema.dropTable('public_rate_counters');
}
