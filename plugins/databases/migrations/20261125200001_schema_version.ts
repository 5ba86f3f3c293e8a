import type { Knex } from 'knex';
import { createSignalTrigger, dropSignalTrigger } from '../../../core/cache.ts';

/**
 * `schema_version` counts changes to a database's fields: record writers compare it, under the
 * database row's share lock, with the fields they cached. Databases and fields are cached per
 * database by every process (`databases` topic): a change signals them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('databases', (t) => {
    t.bigInteger('schema_version').notNullable().defaultTo(1);
  });
  await createSignalTrigger(knex, 'databases', 'databases', 'id', 'UPDATE OR DELETE');
  await createSignalTrigger(knex, 'fields', 'databases', 'database_id');
}

export async function down(knex: Knex): Promise<void> {
  await dropSignalTrigger(knex, 'fields');
  await dropSignalTrigger(knex, 'databases');
  await knex.schema.alterTable('databases', (t) => {
    t.dropColumn('schema_version');
  });
}
