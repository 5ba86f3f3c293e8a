import type { Knex } from 'knex';
import { createSignalTrigger, dropSignalTrigger } from '../core/cache.ts';

/**
 * `tessera_signal_cache(topic, key_column)`: a row trigger plugins put on the tables behind
 * a cached fact. After commit, every process listening on `tessera_cache` drops what it
 * cached for that topic and key (core/cache.ts); PostgreSQL folds repeats within a transaction.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION tessera_signal_cache() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      old_key text := CASE WHEN TG_OP <> 'INSERT' THEN to_jsonb(OLD) ->> TG_ARGV[1] END;
      new_key text := CASE WHEN TG_OP <> 'DELETE' THEN to_jsonb(NEW) ->> TG_ARGV[1] END;
    BEGIN
      IF old_key IS NOT NULL THEN
        PERFORM pg_notify('tessera_cache', TG_TABLE_SCHEMA || '|' || TG_ARGV[0] || '|' || old_key);
      END IF;
      IF new_key IS NOT NULL AND new_key IS DISTINCT FROM old_key THEN
        PERFORM pg_notify('tessera_cache', TG_TABLE_SCHEMA || '|' || TG_ARGV[0] || '|' || new_key);
      END IF;
      RETURN NULL;
    END $$`);
  // The kernel's own cached facts: who a token belongs to and what its user looks like.
  await createSignalTrigger(knex, 'users', 'users', 'id', 'UPDATE OR DELETE');
  await createSignalTrigger(knex, 'sessions', 'sessions', 'token_hash', 'UPDATE OR DELETE');
  await createSignalTrigger(knex, 'personal_access_tokens', 'tokens', 'token_hash');
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['personal_access_tokens', 'sessions', 'users']) await dropSignalTrigger(knex, table);
  await knex.raw('DROP FUNCTION IF EXISTS tessera_signal_cache()');
}
