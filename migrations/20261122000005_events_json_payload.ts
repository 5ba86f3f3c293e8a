import type { Knex } from 'knex';

/**
 * Event payloads are stored as `json`, not `jsonb`: PostgreSQL only checks `json` input, while
 * building `jsonb` cost a bulk write of 100 records ~1.5 ms of its ~15. Payloads are read whole
 * by the dispatcher; `->` and `->>` work on both types.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE kernel_events ALTER COLUMN payload TYPE json USING payload::json');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE kernel_events ALTER COLUMN payload TYPE jsonb USING payload::jsonb');
}
