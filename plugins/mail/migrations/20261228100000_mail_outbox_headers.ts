import type { Knex } from 'knex';

/** The headers a sender added to a stored message (`List-Unsubscribe`…), shown with it. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mail_outbox', (t) => {
    t.jsonb('headers');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('mail_outbox', (t) => {
    t.dropColumn('headers');
  });
}
