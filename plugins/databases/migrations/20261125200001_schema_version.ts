import type { Knex } from 'knex';

/**
 * `schema_version` counts changes to a database's fields: record writers compare it, under the
 * database row's share lock, with the fields they cached. Databases and fields are cached per
 * database by every process (`databases` topic): a change signals them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('databases', (t) => {
    t.bigInteger('schema_version').notNullable().defaultTo(1);
  });
  await knex.raw(`CREATE TRIGGER databases_signal_cache AFTER UPDATE OR DELETE ON databases
    FOR EACH ROW EXECUTE FUNCTION tessera_signal_cache('databases', 'id')`);
  await knex.raw(`CREATE TRIGGER fields_signal_cache AFTER INSERT OR UPDATE OR DELETE ON fields
    FOR EACH ROW EXECUTE FUNCTION tessera_signal_cache('databases', 'database_id')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS fields_signal_cache ON fields');
  await knex.raw('DROP TRIGGER IF EXISTS databases_signal_cache ON databases');
  await knex.schema.alterTable('databases', (t) => {
    t.dropColumn('schema_version');
  });
}
