import type { Knex } from 'knex';

/**
 * The fire time of a schedule automation's latest run: the scheduler claims a fire time by moving it forward with a
 * conditional UPDATE, so each time starts one run however many processes tick.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('automations', (t) => {
    t.timestamp('last_scheduled_for', { useTz: true });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('automations', (t) => {
    t.dropColumn('last_scheduled_for');
  });
}
