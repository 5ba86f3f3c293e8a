import type { Knex } from 'knex';

/**
 * Whether mail to an account's address is delivered: `bouncing` once its mail provider reported a permanent bounce,
 * `complained` once its owner marked our mail as spam. Mail that can wait (notification digests) is not sent then.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.text('email_status').notNullable().defaultTo('ok');
    t.timestamp('email_status_at', { useTz: true });
  });
  await knex.raw(`ALTER TABLE users ADD CONSTRAINT users_email_status CHECK (email_status IN ('ok', 'bouncing', 'complained'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE users DROP CONSTRAINT users_email_status');
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('email_status_at');
    t.dropColumn('email_status');
  });
}
