import type { Knex } from 'knex';

/**
 * Beside the views (`database_views`, the migration before this one): each user's personal overrides and
 * form publications.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('view_overrides', (t) => {
    t.uuid('view_id').notNullable().references('database_views.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.jsonb('filter');
    t.jsonb('sorts');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['view_id', 'user_id']);
    t.index(['workspace_id', 'user_id']);
  });
  await knex.schema.createTable('view_publications', (t) => {
    t.uuid('view_id').primary().references('database_views.id').onDelete('CASCADE');
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('token_hash').notNullable().unique();
    t.uuid('published_by').references('users.id').onDelete('SET NULL');
    t.timestamp('published_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('view_publications');
  await knex.schema.dropTable('view_overrides');
}
