import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // At most one live token per user: a new request deletes the older ones. Only the token's SHA-256 is kept.
  await knex.schema.createTable('auth_password_resets', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE').index();
    t.text('token_hash').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable().index();
    t.timestamp('used_at', { useTz: true });
  });

  // Attempts (not failures) per hashed key; each row carries its own window's end, so limiters of different windows share the table.
  await knex.schema.createTable('auth_rate_counters', (t) => {
    t.text('key').primary();
    t.integer('hits').notNullable();
    t.timestamp('window_ends', { useTz: true }).notNullable().index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('auth_rate_counters');
  await knex.schema.dropTable('auth_password_resets');
}
