import type { Knex } from 'knex';

/**
 * The authorization code flows under way: one row per connection waiting for its provider's callback, found by the
 * hash of its one-time `state`, bound to the user who started it. The PKCE verifier is sealed like any credential.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('integration_oauth_states', (t) => {
    t.text('state_hash').primary();
    t.uuid('connection_id').notNullable().references('integration_connections.id').onDelete('CASCADE');
    t.uuid('user_id').notNullable();
    t.text('verifier').notNullable();
    t.text('redirect_uri').notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.index(['connection_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('integration_oauth_states');
}
