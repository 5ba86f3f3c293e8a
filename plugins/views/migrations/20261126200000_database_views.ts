import type { Knex } from 'knex';

/**
 * The views plugin's own table. Installs made before it moved here had it from the databases plugin's first
 * migration (same shape), so it is created only where it is missing.
 */
export async function up(knex: Knex): Promise<void> {
  if (await knex.schema.hasTable('database_views')) return;
  await knex.schema.createTable('database_views', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('database_id').notNullable().references('databases.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('type').notNullable();
    t.boolean('is_default').notNullable().defaultTo(false);
    t.jsonb('config').notNullable().defaultTo('{}');
    t.integer('position').notNullable().defaultTo(0);
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['database_id']);
  });
  await knex.raw('CREATE UNIQUE INDEX database_views_one_default ON database_views (database_id) WHERE is_default');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('database_views');
}
