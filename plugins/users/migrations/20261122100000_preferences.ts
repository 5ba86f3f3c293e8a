import type { Knex } from 'knex';

/** One row per user who changed a preference; a user without a row has the defaults. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users_preferences', (t) => {
    t.uuid('user_id').primary().references('users.id').onDelete('CASCADE');
    t.text('locale').notNullable().defaultTo('en');
    t.text('timezone').notNullable().defaultTo('UTC');
    t.jsonb('notifications').notNullable().defaultTo('{}');
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('users_preferences');
}
