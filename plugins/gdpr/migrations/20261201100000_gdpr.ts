import type { Knex } from 'knex';

/**
 * Receipts hold no personal data: a keyed hash of the email, ids of the workspace and of who erased, and the
 * taps' counts. Exports belong to the person they are about and to whoever asked, and go with either.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('gdpr_erasures', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.text('user_hash').notNullable();
    // No foreign keys: a receipt outlives the workspace and the admin it names.
    t.uuid('workspace_id');
    t.uuid('erased_by').notNullable();
    t.jsonb('reports').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['created_at', 'id']);
  });
  await knex.schema.createTable('gdpr_exports', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    // No foreign key: the plugins that own workspaces migrate after this one (they tap it); the row lives 24 h.
    t.uuid('workspace_id');
    t.uuid('requested_by').notNullable().references('users.id').onDelete('CASCADE');
    t.text('status').notNullable().defaultTo('queued');
    t.text('blob_key');
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['requested_by']);
    t.index(['user_id']);
  });
  await knex.raw("ALTER TABLE gdpr_exports ADD CONSTRAINT gdpr_exports_status CHECK (status IN ('queued','running','ready','failed','expired'))");
  // The key receipts' hashes are made with, when no `receiptKey` option is given: one per instance, made once.
  await knex.schema.createTable('gdpr_keys', (t) => {
    t.text('name').primary();
    t.text('secret').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('gdpr_keys');
  await knex.schema.dropTable('gdpr_exports');
  await knex.schema.dropTable('gdpr_erasures');
}
