import type { Knex } from 'knex';

/**
 * Tables of a plugin carry its id as prefix; this one runs in the plugin's own migration table. Rows reference the
 * workspace and the user with cascades, so deleting either takes its greetings along without any code here.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('hello_greetings', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.uuid('created_by').notNullable().references('users.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('message').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['workspace_id', 'created_at', 'id']);
  });
  // "Each name once per member and workspace", kept by the database so that two requests at once cannot both pass.
  await knex.raw('CREATE UNIQUE INDEX hello_greetings_once ON hello_greetings (workspace_id, created_by, lower(name))');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('hello_greetings');
}
