import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // One row per OAuth sign-in in progress; consumed (deleted) by its callback.
  await knex.schema.createTable('auth_oauth_states', (t) => {
    t.text('state_hash').primary();
    t.text('provider').notNullable();
    t.text('code_verifier').notNullable();
    t.text('redirect_uri').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable().index();
  });

  await knex.schema.createTable('auth_identities', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('provider').notNullable();
    t.text('subject').notNullable();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE').index();
    t.text('email');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['provider', 'subject']);
  });

  // One fixed-window counter per hashed email or IP address; rows whose window ended are pruned.
  await knex.schema.createTable('auth_sign_in_failures', (t) => {
    t.text('key').primary();
    t.integer('failures').notNullable();
    t.timestamp('window_started', { useTz: true }).notNullable().index();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('auth_sign_in_failures');
  await knex.schema.dropTable('auth_identities');
  await knex.schema.dropTable('auth_oauth_states');
}
