import type { Knex } from 'knex';

/**
 * Roles granted to a user on one space or database, raising what their workspace role gives
 * them there. `scope_id` has no foreign key (it names a row of either table); the plugin
 * deletes grants when their scope, or the user's membership, goes.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('access_grants', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('scope_type').notNullable();
    t.uuid('scope_id').notNullable();
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('role').notNullable();
    t.uuid('created_by').references('users.id').onDelete('SET NULL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['scope_type', 'scope_id', 'user_id']);
    // Every request of a member reads its grants in the workspace.
    t.index(['workspace_id', 'user_id']);
    t.index(['workspace_id', 'created_at', 'id']);
  });
  await knex.raw("ALTER TABLE access_grants ADD CONSTRAINT access_grants_scope_type CHECK (scope_type IN ('space','database'))");
  await knex.raw("ALTER TABLE access_grants ADD CONSTRAINT access_grants_role CHECK (role IN ('creator','editor','member'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('access_grants');
}
