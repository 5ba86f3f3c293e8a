import type { Knex } from 'knex';

/** Memberships are cached per workspace by every process (kernel `access` topic): a change signals them. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TRIGGER workspace_members_signal_cache AFTER INSERT OR UPDATE OR DELETE ON workspace_members
    FOR EACH ROW EXECUTE FUNCTION tessera_signal_cache('access', 'workspace_id')`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS workspace_members_signal_cache ON workspace_members');
}
