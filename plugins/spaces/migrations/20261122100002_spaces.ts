import type { Knex } from 'knex';

/** Spaces group a workspace's content; folders arrange it inside a space, nested up to ten deep. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('spaces', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('description');
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workspace_id', 'created_at', 'id']);
  });

  await knex.schema.createTable('folders', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('space_id').notNullable().references('spaces.id').onDelete('CASCADE');
    t.uuid('parent_id').references('folders.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['space_id', 'created_at', 'id']);
    // Deleting a folder cascades to its children: find them without a scan.
    t.index(['parent_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('folders');
  await knex.schema.dropTable('spaces');
}
