import type { Knex } from 'knex';

/**
 * Idempotency-Key records of POST creates (core/idempotency.ts): a row is claimed before the
 * handler runs (status NULL = in flight) and completed with the response to replay.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('kernel_idempotency_keys', (t) => {
    t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('key').notNullable();
    t.text('method').notNullable();
    t.text('route').notNullable();
    t.text('path').notNullable();
    t.text('request_hash').notNullable();
    t.integer('status');
    // json, not jsonb: a replay must return the body's members in their original order.
    t.json('response_body');
    t.jsonb('response_headers');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('completed_at', { useTz: true });
    t.primary(['user_id', 'key']);
  });
  await knex.raw('CREATE INDEX kernel_idempotency_keys_created_at ON kernel_idempotency_keys (created_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('kernel_idempotency_keys');
}
