import type { Knex } from 'knex';

/** Identity lives in the kernel: every plugin refers to users, and auth strategies read sessions and tokens. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('email').notNullable();
    t.text('name').notNullable();
    t.text('password_hash');
    t.boolean('is_instance_admin').notNullable().defaultTo(false);
    t.timestamp('disabled_at', { useTz: true });
    t.text('avatar_key');
    t.timestamp('avatar_updated_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE UNIQUE INDEX users_email_lower ON users (lower(email))');

  await knex.schema.createTable('sessions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('token_hash').notNullable().unique();
    t.text('user_agent');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('last_seen_at', { useTz: true });
    t.index(['user_id']);
  });

  await knex.schema.createTable('personal_access_tokens', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('workspace_id').notNullable();
    t.text('name').notNullable();
    t.text('scope').notNullable().defaultTo('read');
    t.boolean('allow_run_button').notNullable().defaultTo(false);
    t.text('prefix').notNullable();
    t.text('token_hash').notNullable().unique();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('expires_at', { useTz: true });
    t.index(['user_id']);
    t.index(['workspace_id']);
  });
  await knex.raw("ALTER TABLE personal_access_tokens ADD CONSTRAINT personal_access_tokens_scope CHECK (scope IN ('read','write','admin'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('personal_access_tokens');
  await knex.schema.dropTable('sessions');
  await knex.schema.dropTable('users');
}
