import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('auth_sign_in_failures', (t) => {
    // Counters of different windows share the table: per (email, address) and per address 15 minutes, per account an hour.
    t.integer('window_seconds').notNullable().defaultTo(15 * 60);
    // The hashed email a counter is about, so that erasing the person finds the counters keyed by (email, address) too.
    t.text('account_key').index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('auth_sign_in_failures', (t) => {
    t.dropColumn('account_key');
    t.dropColumn('window_seconds');
  });
}
