import type { Knex } from 'knex';

/** Tables of a plugin carry its id as prefix; this one runs in the plugin's own migration table. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('hello_greetings', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('message').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['user_id', 'created_at', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('hello_greetings');
}
