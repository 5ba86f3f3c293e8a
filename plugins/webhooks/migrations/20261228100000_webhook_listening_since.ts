import type { Knex } from 'knex';

/**
 * When a webhook was created or last enabled: the fan-out, which may run well after a write committed (an import's
 * thousands of events are fanned out page by page), gives it only the events that occurred since. Existing webhooks
 * listen since they were created, as before.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhooks', (t) => {
    t.timestamp('listening_since', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex('webhooks').update({ listening_since: knex.ref('created_at') });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhooks', (t) => {
    t.dropColumn('listening_since');
  });
}
