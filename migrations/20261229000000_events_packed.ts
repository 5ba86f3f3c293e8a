import type { Knex } from 'knex';

/**
 * Several events of one name, workspace and actor recorded by one write (a bulk create, an import's batch) share one
 * outbox row: `payload` is then the array of their payloads and `count` how many (null: one event, as before). The id
 * sequence steps by 65,536, so a row's events take the ids from its own up, never one another row has.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('kernel_events', (t) => {
    t.integer('count');
  });
  const { rows } = await knex.raw("SELECT pg_get_serial_sequence('kernel_events', 'id') AS name");
  await knex.raw(`ALTER SEQUENCE ${rows[0].name} INCREMENT BY 65536`);
}

export async function down(knex: Knex): Promise<void> {
  const { rows } = await knex.raw("SELECT pg_get_serial_sequence('kernel_events', 'id') AS name");
  await knex.raw(`ALTER SEQUENCE ${rows[0].name} INCREMENT BY 1`);
  await knex.schema.alterTable('kernel_events', (t) => {
    t.dropColumn('count');
  });
}
